import { attemptFieldOf, attemptIdOf, outcomeOf } from '../app/app-answers.js';
import { errorText } from '../error-text.js';
import type { Scenario } from '../scenario.js';
import { fulfilmentCaughtRunning } from './caught-running.js';
import { expectPaid } from './expect-paid.js';
import { describeAnswer, expectAttempt, expectOneAttempt, fulfilJobOf, fulfilled, orderAndCheckout } from './steps.js';

/** docs/design.md §9 scenario 12. */
export const crashBeforeFulfilment: Scenario = {
  id: 12,
  name: 'crash after the event is saved, before fulfilment',
  defends: 'repeated business effect',
  criterion:
    'the service process is killed (SIGKILL) while the paid order’s fulfilment job is running and restarted: once ' +
    'the lease expires the job runs again and the order is fulfilled exactly once',
  needs: ['jobs', 'crashAndRestart'],
  async run(ctx) {
    const caught = await fulfilmentCaughtRunning(ctx);
    if (caught === null) return ctx.conclude();
    const { orderId, running, seen } = caught;
    try {
      const { oldPid, newPid, replica } = await ctx.serviceControl.crashAndRestart();
      ctx.note(
        `killed ${replica === undefined ? '' : `replica ${replica + 1} of ${ctx.service.replicas.length}, `}pid ${oldPid} with the fulfilment job ${running.status} (attempt ${running.attempts}, ` +
          `no fulfilment written); restarted as pid ${newPid}; job states seen: ${seen.join(' → ')}`,
      );
    } catch (error) {
      ctx.expect(false, `crash and restart failed: ${errorText(error)}`);
      return ctx.conclude();
    }
    const after = await fulfilled(ctx, orderId);
    const job = after ? fulfilJobOf(after) : undefined;
    if (job) ctx.note(`after the restart: job ${job.status} after ${job.attempts} attempt(s)`);
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 14. */
export const jobRerun: Scenario = {
  id: 14,
  name: 'job re-run does not re-fulfil',
  defends: 'repeated business effect',
  criterion:
    'after the order is fulfilled, an operator reruns its finished fulfilment job (the reference service: the ' +
    'console’s POST /admin/api/jobs/:id/rerun with an Idempotency-Key, refused 409 JOB_NOT_DEAD): the answer is ' +
    'a refusal (409/422) or a success, never an error; the job ends done and the order has exactly one fulfilment',
  needs: ['jobs', 'rerunFulfilment'],
  async run(ctx) {
    const rerun = ctx.service.adapter.capabilities?.rerunFulfilment;
    if (rerun === undefined) return ctx.skip('the app adapter offers no rerunFulfilment');
    const { orderId } = await orderAndCheckout(ctx);
    const done = await fulfilled(ctx, orderId);
    const job = done ? fulfilJobOf(done) : undefined;
    if (!ctx.expect(job !== undefined, 'the paid order has no order.fulfil job') || job === undefined) {
      return ctx.conclude();
    }
    const answer = await rerun({ customer: ctx.customer, orderId, jobId: job.id, idempotencyKey: ctx.key('rerun') });
    const code = (answer.json as { code?: unknown } | null)?.code;
    ctx.note(`rerun of job ${job.id} (${job.status}, ${job.attempts} attempt(s)): ${answer.status} ${String(code)}`);
    ctx.expect(
      answer.status === 409 || answer.status === 422 || (answer.status >= 200 && answer.status < 300),
      `re-running a done job answered ${answer.status}: ${answer.text.slice(0, 300)}`,
    );
    const after = (await fulfilled(ctx, orderId)) ?? (await ctx.view(orderId));
    const now = after.jobs.find((j) => j.id === job.id);
    ctx.note(
      `after the rerun: job ${now?.status} (${now?.attempts} attempt(s)), ${after.fulfilments.length} fulfilment(s)`,
    );
    ctx.expect(now?.status === 'done', `the job is ${now?.status} after the rerun, expected done`);
    ctx.expect(after.fulfilments.length === 1, `${after.fulfilments.length} fulfilments, expected 1`);
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 15. */
export const unknownReconciled: Scenario = {
  id: 15,
  name: 'unknown result after timeout reconciled',
  defends: 'repeated charge',
  criterion:
    'the provider creates the payment but never answers (hang-after-commit beyond the service’s provider timeout): ' +
    'the attempt becomes "unknown" (never failed), a new checkout gets the same attempt (no second payment), ' +
    'reconciliation learns the provider’s payment without any webhook, and the order ends paid once with one charge',
  needs: ['attempts'],
  async run(ctx) {
    const orderId = await ctx.newOrder();
    await ctx.sandbox.plan(orderId, { responseFault: 'hang-after-commit', hangMs: 120_000, outcome: 'hold' });
    const first = await ctx.checkout(orderId, ctx.key('pay'));
    ctx.note(`checkout with no provider answer: ${describeAnswer(first)}`);
    const attemptId = expectAttempt(ctx, first, 'checkout with no provider answer');
    const status = attemptFieldOf(first, 'status');
    const paymentId = await ctx.paymentOf(orderId);
    // The service got no answer, so it can only know the payment if reconciliation already found it (a service
    // whose reconcile age is below its provider timeout does that while the call still hangs): fine, it is safe.
    const resolvedEarly = status === 'pending' && attemptFieldOf(first, 'providerPaymentId') === paymentId;
    if (resolvedEarly) ctx.note('reconciliation found the payment before the provider call timed out');
    ctx.expect(
      status === 'unknown' || resolvedEarly,
      `a provider timeout left the attempt ${status}, expected unknown (never failed: the payment may exist)`,
    );
    const again = await ctx.checkout(orderId, ctx.key('retry'));
    ctx.note(`checkout again while unknown: ${describeAnswer(again)}`);
    ctx.expect(
      outcomeOf(again) === 'existing' && attemptIdOf(again) === attemptId,
      `a checkout while the attempt is unknown answered ${describeAnswer(again)} instead of the same attempt`,
    );
    await expectOneAttempt(ctx, orderId, [first, again]);
    const reconciled = await ctx.waitFor('reconciliation to resolve the unknown attempt', async () => {
      const attempt = (await ctx.view(orderId)).attempts.find((a) => a.id === attemptId);
      return attempt !== undefined && attempt.status !== 'unknown' ? attempt : null;
    });
    if (reconciled !== null) {
      ctx.note(`reconciled to ${reconciled.status} with payment ${reconciled.providerPaymentId}`);
      ctx.expect(
        reconciled.providerPaymentId === paymentId && reconciled.status !== 'failed',
        `reconciliation made the attempt ${reconciled.status} with payment ${reconciled.providerPaymentId}, ` +
          `but the provider holds payment ${paymentId}`,
      );
    }
    await ctx.sandbox.settle(paymentId);
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

import type { AppPaymentAnswer } from '../app/storm-app-adapter.js';
import { craftSucceededEvent } from '../crafted-event.js';
import { errorText } from '../error-text.js';
import type { Scenario } from '../scenario.js';
import type { ScenarioContext } from '../scenario-context.js';
import { replicaOfPid } from '../service-control.js';
import { fulfilmentCaughtRunning } from './caught-running.js';
import { expectPaid } from './expect-paid.js';
import {
  describeAnswer,
  expectAttempt,
  expectOneAttempt,
  fulfilJobOf,
  fulfilled,
  heldPayment,
  isPayAnswer,
  isSuccess,
  PAY_STATUSES_TEXT,
} from './steps.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ONE_REPLICA =
  'needs at least 2 replicas of the service (payonce demo --replicas N, payonce storm --replica URL --replica URL …)';

/** The skip result when the storm runs against a single service, else `null`. */
function needsReplicas(ctx: ScenarioContext) {
  return ctx.service.replicas.length < 2 ? ctx.skip(ONE_REPLICA) : null;
}

/** A checkout on replica `replica`, retrying a 409 "still running" (Retry-After) on the same replica. */
async function checkoutOn(
  ctx: ScenarioContext,
  replica: number,
  orderId: string,
  key: string,
): Promise<AppPaymentAnswer> {
  for (;;) {
    const answer = await ctx.service.on(replica).checkout(ctx.customer, orderId, key);
    if (answer.status !== 409 || answer.headers['retry-after'] === undefined || ctx.timeLeftMs() === 0) return answer;
    await sleep(Math.min(250, Number(answer.headers['retry-after']) * 1000 || 250));
  }
}

/** Replica scenario 19. */
export const sameCheckoutTwoReplicas: Scenario = {
  id: 19,
  name: 'same checkout on two replicas at once',
  defends: 'repeated payment attempt',
  criterion:
    'two checkouts with the same Idempotency-Key sent at once to two different replicas (one database) both end ' +
    '200/201/202 naming the same attempt (a 409 "still running" is retried); one attempt, one provider payment, one charge',
  needs: ['replicas', 'attempts'],
  async run(ctx) {
    const skip = needsReplicas(ctx);
    if (skip) return skip;
    const orderId = await ctx.newOrder();
    const key = ctx.key('replicas');
    const answers = await Promise.all([checkoutOn(ctx, 0, orderId, key), checkoutOn(ctx, 1, orderId, key)]);
    ctx.note(`replica 1: ${describeAnswer(answers[0])} | replica 2: ${describeAnswer(answers[1])}`);
    for (const [i, answer] of answers.entries()) expectAttempt(ctx, answer, `replica ${i + 1}`, true);
    await expectOneAttempt(ctx, orderId, answers);
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** Replica scenario 20. */
export const sameWebhookEveryReplica: Scenario = {
  id: 20,
  name: 'same webhook to every replica at once',
  defends: 'repeated business effect',
  criterion:
    'one authentic success event (same bytes, same signature) is delivered to every replica at the same moment: ' +
    'every copy is answered 2xx (or 409 "in progress", which a provider redelivers), a later copy is 2xx, and the ' +
    'order is paid once and fulfilled once',
  needs: ['replicas'],
  async run(ctx) {
    const skip = needsReplicas(ctx);
    if (skip) return skip;
    const held = await heldPayment(ctx);
    const event = craftSucceededEvent(held.signing, { intent: held.intent, signature: 'valid', nowMs: Date.now() });
    const replicas = ctx.service.replicas.map((_, i) => i);
    const answers = await Promise.all(replicas.map((i) => ctx.sendCrafted(event, i)));
    ctx.note(`copies to ${replicas.length} replicas at once: ${answers.map((a) => a.status).join(' ')}`);
    ctx.expect(
      answers.every((a) => isSuccess(a.status) || a.status === 409) && answers.some((a) => isSuccess(a.status)),
      `the copies were answered ${answers.map((a) => a.status).join(', ')}: each must be 2xx or 409, one at least 2xx`,
    );
    const later = await ctx.sendCrafted(event);
    ctx.note(`a later copy: ${later.status}`);
    ctx.expect(isSuccess(later.status), `a later copy of the event answered ${later.status}`);
    await ctx.sandbox.settle(held.paymentId);
    await expectPaid(ctx, held.orderId);
    return ctx.conclude();
  },
};

/** The pid in a `payonce serve` lease owner (`serve-<pid>-<random>`), or `null`. */
function pidOfOwner(owner: string | null | undefined): number | null {
  const match = /^serve-(\d+)-/.exec(owner ?? '');
  return match ? Number(match[1]) : null;
}

/** Replica scenario 21. */
export const replicaKilledMidFulfilment: Scenario = {
  id: 21,
  name: 'replica killed mid-fulfilment, another serves the retry',
  defends: 'repeated business effect',
  criterion:
    'the replica whose worker runs the paid order’s fulfilment job is SIGKILLed mid-job; while it is down another ' +
    'replica answers the customer’s retried checkout (200, the paid attempt) and the order view; after the lease ' +
    'expires the job runs again and the order is fulfilled exactly once',
  needs: ['replicas', 'jobs', 'crashAndRestart'],
  async run(ctx) {
    const skip = needsReplicas(ctx);
    if (skip) return skip;
    const caught = await fulfilmentCaughtRunning(ctx);
    if (caught === null) return ctx.conclude();
    const { orderId, attemptId, running } = caught;
    const pid = pidOfOwner(running.leaseOwner);
    const victim = pid === null ? null : await replicaOfPid(ctx.service.replicas, pid);
    if (
      !ctx.expect(victim !== null, `no replica answers with the job's lease owner ${running.leaseOwner ?? '(none)'}`)
    ) {
      return ctx.conclude();
    }
    const survivor = (victim! + 1) % ctx.service.replicas.length;
    const killing = ctx.serviceControl.crashAndRestart(victim!);
    // The customer retries at once; another replica serves it while the killed one is down.
    await sleep(20);
    const retry = await checkoutOn(ctx, survivor, orderId, ctx.key('retry'));
    ctx.note(
      `replica ${survivor + 1} answered the retry while replica ${victim! + 1} was killed: ${describeAnswer(retry)}`,
    );
    ctx.expect(
      isPayAnswer(retry.status),
      `the surviving replica answered the retried checkout ${describeAnswer(retry)}, expected ${PAY_STATUSES_TEXT}`,
    );
    const view = await ctx.service.on(survivor).orderView(ctx.customer, orderId);
    ctx.expect(
      view.attempts.length === 1 && view.attempts[0]?.id === attemptId,
      `the surviving replica shows ${view.attempts.length} attempts, expected the one paid attempt`,
    );
    try {
      const { oldPid, newPid } = await killing;
      ctx.note(`killed replica ${victim! + 1} (pid ${oldPid}) mid-fulfilment; restarted as pid ${newPid}`);
    } catch (error) {
      ctx.expect(false, `crash and restart failed: ${errorText(error)}`);
      return ctx.conclude();
    }
    const after = await fulfilled(ctx, orderId);
    const job = after ? fulfilJobOf(after) : undefined;
    if (job) ctx.note(`after the kill: job ${job.status} after ${job.attempts} attempt(s)`);
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** Replica scenario 22. */
export const duplicateWaitsOnOtherReplica: Scenario = {
  id: 22,
  name: "duplicate waits on another replica's run",
  defends: 'repeated HTTP request',
  criterion:
    'a checkout still running on one replica (the provider answers after 400 ms) is repeated with the same ' +
    'Idempotency-Key on another replica: the duplicate waits and is answered 200/201/202 with the FIRST result ' +
    '(same attempt, Idempotent-Replayed: true), never 409 (the service runs with --wait-for-in-flight-ms)',
  needs: ['replicas', 'attempts'],
  async run(ctx) {
    const skip = needsReplicas(ctx);
    if (skip) return skip;
    const orderId = await ctx.newOrder();
    await ctx.sandbox.plan(orderId, { responseDelayMs: 400 });
    const key = ctx.key('wait');
    const first = ctx.service.on(0).checkout(ctx.customer, orderId, key);
    await sleep(100);
    const started = Date.now();
    const duplicate = await ctx.service.on(1).checkout(ctx.customer, orderId, key);
    const waitedMs = Date.now() - started;
    const original = await first;
    ctx.note(
      `replica 1: ${describeAnswer(original)}; replica 2 (same key, ${waitedMs} ms later): ${describeAnswer(duplicate)}`,
    );
    const firstAttempt = expectAttempt(ctx, original, 'the first checkout');
    ctx.expect(duplicate.status !== 409, 'the duplicate on the other replica was answered 409 instead of waiting');
    const duplicateAttempt = expectAttempt(ctx, duplicate, 'the waiting duplicate');
    ctx.expect(
      duplicate.headers['idempotent-replayed'] === 'true' && duplicate.status === original.status,
      `the duplicate is not a replay of the first response (${describeAnswer(duplicate)} vs ${describeAnswer(original)})`,
    );
    ctx.expect(firstAttempt === duplicateAttempt, 'the duplicate names another attempt than the first checkout');
    await expectOneAttempt(ctx, orderId, [original, duplicate]);
    return ctx.conclude();
  },
};

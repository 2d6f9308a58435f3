import { errorText } from '../error-text.js';
import type { Scenario } from '../scenario.js';
import type { ScenarioContext } from '../scenario-context.js';
import { expectPaid } from './expect-paid.js';
import { delivered, fulfilJobOf, fulfilled, isClientError, isSuccess, orderAndCheckout } from './steps.js';

const SUCCEEDED = 'payment_intent.succeeded';

/** docs/design.md §9 scenario 8. */
export const sameWebhookTwice: Scenario = {
  id: 8,
  name: 'same webhook twice',
  defends: 'repeated business effect',
  criterion:
    'the provider delivers the success event and then the same event again: both deliveries are acknowledged 2xx; ' +
    'the order moves to paid once and is fulfilled once',
  async run(ctx) {
    const { orderId } = await orderAndCheckout(ctx, { duplicateDeliveries: 1 });
    const paymentId = await ctx.paymentOf(orderId);
    const log = await ctx.waitFor('the duplicate delivery', async () => {
      const deliveries = await ctx.sandbox.deliveries(paymentId);
      return deliveries.some((d) => d.kind === 'duplicate' && d.status !== null) ? deliveries : null;
    });
    for (const d of log ?? []) {
      if (d.kind === 'duplicate')
        ctx.expect(isSuccess(d.status), `the duplicate of ${d.eventType} answered ${d.status}`);
    }
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 9. */
export const twoEventIds: Scenario = {
  id: 9,
  name: 'two events, one payment, different ids',
  defends: 'repeated business effect',
  criterion:
    'the success is announced by payment_intent.succeeded AND charge.succeeded (two event ids, one payment): ' +
    'both acknowledged 2xx, one paid transition, one fulfilment',
  async run(ctx) {
    const { orderId } = await orderAndCheckout(ctx, { twoEventIds: true });
    const paymentId = await ctx.paymentOf(orderId);
    const log = await delivered(ctx, paymentId, 'charge.succeeded');
    if (log !== null) {
      const ids = new Set(log.filter((d) => d.kind === 'attempt' && isSuccess(d.status)).map((d) => d.eventId));
      ctx.expect(ids.size >= 2, `only ${ids.size} distinct event id(s) were acknowledged; expected two`);
    }
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 13. */
export const webhookBeforeResponse: Scenario = {
  id: 13,
  name: 'webhook before the checkout response',
  defends: 'repeated business effect',
  criterion:
    'the provider settles and delivers the success event BEFORE answering the create call: the checkout still ' +
    'answers 200/201/202, the early event is not lost, the order is paid and fulfilled once',
  async run(ctx) {
    const { orderId } = await orderAndCheckout(ctx, { webhookBeforeResponse: true });
    const paymentId = await ctx.paymentOf(orderId);
    const first = (await ctx.sandbox.deliveries(paymentId)).find((d) => d.kind === 'attempt');
    ctx.note(`first delivery (before the create answer) got ${first?.status ?? 'nothing'}`);
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/**
 * Kills and restarts the app when it can be (`capabilities.crashAndRestart`; `--start` gives it), so that a receipt
 * kept only in the process's memory is gone before the re-sends; notes what it did. False when the restart failed
 * (the failure is recorded).
 */
async function restartBeforeResend(ctx: ScenarioContext, orderId: string): Promise<boolean> {
  if (!ctx.restartable) {
    ctx.note('the app cannot be restarted (no crashAndRestart): re-sent without a restart');
    return true;
  }
  try {
    const { oldPid, newPid } = await ctx.serviceControl.crashAndRestart();
    ctx.note(`restarted the app before the re-sends (pid ${oldPid} killed, back as pid ${newPid})`);
  } catch (error) {
    ctx.expect(false, `crash and restart failed: ${errorText(error)}`);
    return false;
  }
  try {
    await ctx.view(orderId);
    return true;
  } catch (error) {
    ctx.expect(
      false,
      `after the restart the app could not show the paid order (${errorText(error)}): it keeps orders or receipts ` +
        'only in memory, and a restart lost them',
    );
    return false;
  }
}

/** docs/design.md §9 scenario 16. */
export const sameNotificationStorm: Scenario = {
  id: 16,
  name: 'same notification 5x in a row and 5x in parallel',
  defends: 'repeated business effect',
  criterion:
    'once the order is paid and fulfilled (and the app killed and restarted, when it can be: receipts must outlive ' +
    'the process), its success event is re-sent 5 times one after the other and 5 times at once: every copy is ' +
    'acknowledged (2xx; 409 "in progress" allowed only for the parallel copies), still one paid transition and ' +
    'one fulfilment',
  async run(ctx) {
    const { orderId } = await orderAndCheckout(ctx);
    const paymentId = await ctx.paymentOf(orderId);
    await fulfilled(ctx, orderId);
    const event = (await ctx.sandbox.events(paymentId)).find((e) => e.type === SUCCEEDED);
    if (!ctx.expect(event !== undefined, 'the provider emitted no success event') || event === undefined) {
      return ctx.conclude();
    }
    if (!(await restartBeforeResend(ctx, orderId))) return ctx.conclude();
    const inRow = await ctx.sandbox.resend(event.id, 5, 1);
    const inParallel = await ctx.sandbox.resend(event.id, 5, 5);
    ctx.note(
      `in a row: ${inRow.map((d) => d.status).join(' ')}; in parallel: ${inParallel.map((d) => d.status).join(' ')}`,
    );
    ctx.expect(
      inRow.length === 5 && inRow.every((d) => isSuccess(d.status)),
      'a copy sent in a row was not acknowledged',
    );
    ctx.expect(
      inParallel.length === 5 && inParallel.every((d) => isSuccess(d.status) || d.status === 409),
      'a copy sent in parallel got neither 2xx nor 409',
    );
    await expectPaid(ctx, orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 17. */
export const paidThenRefunded: Scenario = {
  id: 17,
  name: '"paid" then "refund" on one payment both apply',
  defends: 'repeated business effect',
  criterion:
    'after the order is paid and fulfilled the provider refunds the payment (charge.refunded, another event about ' +
    'the same payment): it is acknowledged and applied (order refunded), the payment stays paid once, fulfilled once',
  needs: ['refunds'],
  async run(ctx) {
    const { orderId } = await orderAndCheckout(ctx);
    const paymentId = await ctx.paymentOf(orderId);
    const done = await fulfilled(ctx, orderId);
    ctx.note(
      `before the refund: order ${done?.order.status}, fulfilment job ${done ? fulfilJobOf(done)?.status : '?'}`,
    );
    await expectPaid(ctx, orderId);
    await ctx.sandbox.refund(paymentId);
    const log = await delivered(ctx, paymentId, 'charge.refunded');
    const refund = log?.find((d) => d.eventType === 'charge.refunded' && d.kind === 'attempt');
    ctx.expect(!isClientError(refund?.status ?? null), `the refund event was refused with ${refund?.status}`);
    const refunded = await ctx.waitFor('the order to become refunded', async () => {
      const view = await ctx.view(orderId);
      return view.order.status === 'refunded' ? view : null;
    });
    if (refunded !== null) ctx.note(`after the refund: ${refunded.fulfilments.length} fulfilment(s)`);
    return ctx.conclude();
  },
};

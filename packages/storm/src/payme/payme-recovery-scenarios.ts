import type { PaymeExchange } from '@payonce/sandbox/payme';
import { PAYME_CODES, PAYME_REASONS } from '@payonce/sandbox/payme';
import { callDuringCrash, crashOf, repeatUntilAnswered } from '../provider/crash-steps.js';
import { jobRerunScenario } from '../provider/job-rerun-scenario.js';
import { PAYME_PAY_WORDS } from './payme-pay-scenarios.js';
import type { PaymeScenario } from './payme-scenario.js';
import { createParams, describePay, expectPerformed, expectState, waitForFulfilment } from './payme-steps.js';
import { codeOf, describeExchange, stateOf } from './payme-storm-context.js';
import type { PaymeStormOrder } from './payme-storm-target.js';

/** An answer Payme acts on: JSON, and not -32400 (the merchant's own failure, which Payme repeats). */
const answered = (exchange: PaymeExchange): boolean =>
  exchange.answer !== null && codeOf(exchange) !== PAYME_CODES.system;

/** Payme storm scenario 8: the merchant killed while it performs. */
export const paymeCrashMidPerform: PaymeScenario = {
  id: 8,
  name: 'crash mid-perform, then Payme’s repeat',
  defends: 'repeated business effect',
  criterion:
    'the merchant process is killed (SIGKILL) while PerformTransaction runs and restarted; Payme repeats the call: ' +
    'state 2 with ONE perform_time (CheckTransaction agrees), one paid transition, one fulfilment',
  alone: true,
  async run(ctx) {
    const crash = crashOf(ctx.target);
    if (typeof crash === 'string') return ctx.skip(crash);
    const order = await ctx.newOrder();
    const id = ctx.newId();
    expectState(
      ctx,
      await ctx.call({ method: 'CreateTransaction', params: createParams(ctx, id, order) }),
      1,
      'Create',
    );
    const perform = { method: 'PerformTransaction', params: { id } };
    const killed = await callDuringCrash(ctx, crash, () => ctx.call(perform));
    if (killed === null) return ctx.conclude();
    const { first } = killed;
    ctx.note(`${killed.note}; the Perform sent with the kill: ${describeExchange(first)}`);
    const repeat = await repeatUntilAnswered(ctx, () => ctx.call(perform), answered);
    expectState(ctx, repeat, 2, 'Payme’s repeat of Perform after the restart');
    const check = await ctx.call({ method: 'CheckTransaction', params: { id } });
    const times = [first, repeat, check].map((x) => x.answer?.result?.perform_time).filter((t) => t !== undefined);
    ctx.expect(new Set(times).size <= 1, `perform_time differs between answers: ${times.join(', ')}`);
    return ctx.conclude();
  },
};

/** Payme storm scenario 9: 12 hours pass between Create and Perform. */
export const paymeTimeout: PaymeScenario = {
  id: 9,
  name: '12-hour timeout between Create and Perform',
  defends: 'repeated payment attempt',
  criterion:
    'Create, then 12 h + 1 min pass (the target’s clock moved, or a Create `time` that old): Perform → -31008, the ' +
    'transaction cancelled (state -1, reason 4), nothing paid or fulfilled',
  alone: true,
  async run(ctx) {
    const order = await ctx.newOrder();
    const payer = ctx.payer({ moveClock: true });
    ctx.note(
      ctx.target.clock === undefined
        ? 'the target exposes no clock: Create carried a `time` 12 h + 1 min old'
        : 'the target’s clock was moved 12 h + 1 min forward between Create and Perform',
    );
    const result = await payer.pay(order, { expire: true });
    ctx.note(`payment: ${describePay(result)}`);
    const tx = payer.ledger.transaction(result.paymeId);
    ctx.expect(
      result.outcome === 'cancelled' && result.state === -1 && tx?.reason === PAYME_REASONS.timeout,
      `after 12 hours: expected state -1 reason 4, got ${describePay(result)} reason ${tx?.reason ?? 'none'}`,
    );
    return ctx.conclude();
  },
};

/** Payme storm scenario 10: a performed transaction cancelled (the refund), then Perform again. */
export const paymeCancelAfterPerform: PaymeScenario = {
  id: 10,
  name: 'cancel after perform (refund), then Perform',
  defends: 'repeated business effect',
  criterion:
    'a performed and fulfilled transaction is cancelled (reason 5): state -2, its repeat answers the stored ' +
    'cancel_time, a Perform after it → -31008 (never a stale 2); one refund on both sides, money back to 0',
  async run(ctx) {
    const order = await ctx.newOrder();
    const paid = await ctx.payer().pay(order);
    ctx.note(`payment: ${describePay(paid)}`);
    if (!expectPerformed(ctx, paid, 'the payment to refund')) return ctx.conclude();
    await waitForFulfilment(ctx, order);
    const cancel = { method: 'CancelTransaction', params: { id: paid.paymeId, reason: PAYME_REASONS.fundReturned } };
    const first = await ctx.call(cancel);
    if (codeOf(first) === PAYME_CODES.cannotCancel) {
      return ctx.skip('the target does not cancel a performed transaction (-31007: goods delivered)');
    }
    expectState(ctx, first, -2, 'Cancel after Perform');
    const again = await ctx.call(cancel);
    ctx.expect(
      stateOf(again) === -2 && again.answer?.result?.cancel_time === first.answer?.result?.cancel_time,
      `the repeated Cancel answered ${describeExchange(again)} after ${describeExchange(first)}`,
    );
    const perform = await ctx.call({ method: 'PerformTransaction', params: { id: paid.paymeId } });
    ctx.expectError(perform, 'Perform after a cancel after perform', PAYME_CODES.impossible);
    return ctx.conclude();
  },
};

/** Payme storm scenario 11: the fulfilment job run again. */
export const paymeJobRerun: PaymeScenario = jobRerunScenario(
  11,
  PAYME_PAY_WORDS,
  (order: PaymeStormOrder) => order.account,
);

import { CLICK_CODES } from '@payonce/sandbox/click';
import { callDuringCrash, crashOf, repeatUntilAnswered } from '../provider/crash-steps.js';
import { jobRerunScenario } from '../provider/job-rerun-scenario.js';
import { payCharged } from '../provider/pay-scenarios.js';
import { CLICK_PAY_WORDS } from './click-pay-scenarios.js';
import { completeOf, prepared } from './click-protocol-scenarios.js';
import type { ClickScenario } from './click-scenario.js';
import { clickErrorOf, describeClickExchange, describeClickPay } from './click-storm-context.js';
import type { ClickStormOrder } from './click-storm-target.js';

/** Click storm scenario 8: the merchant killed while it completes. */
export const clickCrashMidComplete: ClickScenario = {
  id: 8,
  name: 'crash mid-Complete, then Click’s repeat',
  defends: 'repeated business effect',
  criterion:
    'the merchant process is killed (SIGKILL) while Complete runs and restarted; Click repeats the Complete until ' +
    'answered: 0 (or -4), one completed payment, one paid transition, one fulfilment',
  alone: true,
  async run(ctx) {
    const crash = crashOf(ctx.target);
    if (typeof crash === 'string') return ctx.skip(crash);
    const order = await ctx.newOrder();
    const { spec, prepareId } = await prepared(ctx, order);
    const complete = completeOf(spec, prepareId);
    const killed = await callDuringCrash(ctx, crash, () => ctx.call(complete));
    if (killed === null) return ctx.conclude();
    ctx.note(`${killed.note}; the Complete sent with the kill: ${describeClickExchange(killed.first)}`);
    // -7 is the merchant's own failure ("failed to update user"): Click repeats, as after no answer.
    const repeat = await repeatUntilAnswered(
      ctx,
      () => ctx.call(complete),
      (x) => clickErrorOf(x) !== null && clickErrorOf(x) !== CLICK_CODES.failedToUpdate,
    );
    ctx.expectError(repeat, 'Click’s repeat of Complete after the restart', [
      CLICK_CODES.success,
      CLICK_CODES.alreadyPaid,
    ]);
    return ctx.conclude();
  },
};

/** Click storm scenario 9: the payment fails at Click (Complete with error < 0). */
export const clickFailedPayment: ClickScenario = {
  id: 9,
  name: 'failed payment: Complete with error < 0',
  defends: 'repeated payment attempt',
  criterion:
    'a Complete carrying error=-5017 → -9 and nothing paid; a Complete with error 0 after it → -9 (cancelled stays ' +
    'cancelled); the order stays payable: a new payment completes once, one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const failed = await ctx.payer().pay(order, { failedPayment: true });
    ctx.note(`the failed payment: ${describeClickPay(failed)}`);
    ctx.expect(failed.outcome === 'cancelled', `a failed payment: expected -9, got ${describeClickPay(failed)}`);
    const { spec, prepareId } = await prepared(ctx, order);
    ctx.expectError(await ctx.call(completeOf(spec, prepareId, -5017)), 'a failed-payment Complete', [
      CLICK_CODES.cancelled,
    ]);
    ctx.expectError(await ctx.call(completeOf(spec, prepareId)), 'Complete after the failed payment', [
      CLICK_CODES.cancelled,
    ]);
    await payCharged(ctx, CLICK_PAY_WORDS, order, 'then a new payment', 'a new payment after the failed ones');
    return ctx.conclude();
  },
};

/** Click storm scenario 10: the fulfilment job run again. */
export const clickJobRerun: ClickScenario = jobRerunScenario(
  10,
  CLICK_PAY_WORDS,
  (order: ClickStormOrder) => order.merchantTransId,
);

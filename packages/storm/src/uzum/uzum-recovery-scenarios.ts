import { UZUM_CODES, type UzumExchange } from '@payonce/sandbox/uzum';
import { waitForFulfilment } from '../provider/base-storm-context.js';
import { callDuringCrash, crashOf, repeatUntilAnswered } from '../provider/crash-steps.js';
import { jobRerunScenario } from '../provider/job-rerun-scenario.js';
import { expectCharged, payCharged } from '../provider/pay-scenarios.js';
import { UZUM_PAY_WORDS } from './uzum-pay-scenarios.js';
import { created } from './uzum-protocol-scenarios.js';
import type { UzumScenario } from './uzum-scenario.js';
import { describeUzumExchange, describeUzumPay, uzumCodeOf } from './uzum-storm-context.js';
import type { UzumStormOrder } from './uzum-storm-target.js';

/** An answer Uzum Bank acts on: JSON, not a 5xx, not 99999 (the merchant's own failure, which it repeats). */
const clear = (x: UzumExchange): boolean =>
  x.answer !== null && (x.status ?? 500) < 500 && uzumCodeOf(x) !== UZUM_CODES.system;

/** Uzum storm scenario 8: the merchant killed while it confirms. */
export const uzumCrashMidConfirm: UzumScenario = {
  id: 8,
  name: 'crash mid-confirm, then Uzum Bank’s repeat',
  defends: 'repeated business effect',
  criterion:
    'the merchant process is killed (SIGKILL) while /confirm runs and restarted; Uzum Bank repeats /confirm until ' +
    'answered: CONFIRMED with ONE confirmTime (/status agrees), one paid transition, one fulfilment',
  alone: true,
  async run(ctx) {
    const crash = crashOf(ctx.target);
    if (typeof crash === 'string') return ctx.skip(crash);
    const order = await ctx.newOrder();
    const transId = await created(ctx, order);
    const confirm = { operation: 'confirm', fields: { transId } };
    const killed = await callDuringCrash(ctx, crash, () => ctx.call(confirm));
    if (killed === null) return ctx.conclude();
    ctx.note(`${killed.note}; the /confirm sent with the kill: ${describeUzumExchange(killed.first)}`);
    const repeat = await repeatUntilAnswered(ctx, () => ctx.call(confirm), clear);
    ctx.expectStatus(repeat, 'Uzum Bank’s repeat of /confirm after the restart', 'CONFIRMED');
    const status = await ctx.call({ operation: 'status', fields: { transId } });
    const times = [killed.first, repeat, status].map((x) => x.answer?.confirmTime).filter((t) => t !== undefined);
    ctx.expect(new Set(times).size <= 1, `confirmTime differs between answers: ${times.join(', ')}`);
    return ctx.conclude();
  },
};

/** Uzum storm scenario 9: a payment reversed before and after /confirm. */
export const uzumReverse: UzumScenario = {
  id: 9,
  name: 'reverse before and after confirm',
  defends: 'repeated payment attempt',
  criterion:
    'a transaction reversed instead of confirmed → REVERSED, nothing paid, the order stays payable (a new one ' +
    'confirms once); a confirmed and fulfilled one reversed → REVERSED, the repeat answers the stored reverseTime, ' +
    '/confirm after it → 10015; one refund on both sides, money back to 0',
  async run(ctx) {
    const first = await ctx.newOrder();
    const dropped = await ctx.payer().pay(first, { reverse: true });
    ctx.note(`reversed before confirm: ${describeUzumPay(dropped)}`);
    ctx.expect(dropped.outcome === 'reversed', `a reverse before confirm: got ${describeUzumPay(dropped)}`);
    await payCharged(ctx, UZUM_PAY_WORDS, first, 'then a new transaction', 'a new transaction after the reversed one');
    const second = await ctx.newOrder();
    const paid = await ctx.payer().pay(second);
    if (!expectCharged(ctx, UZUM_PAY_WORDS, paid, 'the payment to reverse')) return ctx.conclude();
    await waitForFulfilment(ctx, () => ctx.target.readOrder(second.params));
    const reverse = { operation: 'reverse', fields: { transId: paid.transId } };
    const undone = await ctx.call(reverse);
    ctx.expectStatus(undone, '/reverse after /confirm', 'REVERSED');
    const repeat = await ctx.call(reverse);
    ctx.expect(
      repeat.answer?.status === 'REVERSED' && repeat.answer?.reverseTime === undone.answer?.reverseTime,
      `the repeated /reverse answered ${describeUzumExchange(repeat)} after ${describeUzumExchange(undone)}`,
    );
    ctx.expectFailed(await ctx.call({ operation: 'confirm', fields: { transId: paid.transId } }), '/confirm after it', [
      UZUM_CODES.transactionCancelled,
    ]);
    return ctx.conclude();
  },
};

/** Uzum storm scenario 10: the fulfilment job run again. */
export const uzumJobRerun: UzumScenario = jobRerunScenario(10, UZUM_PAY_WORDS, (order: UzumStormOrder) => order.params);

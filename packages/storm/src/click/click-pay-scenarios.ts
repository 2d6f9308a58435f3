import { CLICK_CODES, type ClickPayResult } from '@payonce/sandbox/click';
import type { ClickContext, ClickScenario } from './click-scenario.js';
import { describeClickPay } from './click-storm-context.js';

/** A second payment's documented refusals: -4 (already paid), -9 (cancelled by a newer Prepare). */
const REFUSALS: readonly number[] = [CLICK_CODES.alreadyPaid, CLICK_CODES.cancelled];

/** Records a failure unless the payment ended completed. */
export function expectCompleted(ctx: ClickContext, result: ClickPayResult, what: string): boolean {
  return ctx.expect(result.outcome === 'completed', `${what}: expected completed, got ${describeClickPay(result)}`);
}

/** Click storm scenario 1: two Click payments for one order. */
export const clickDoublePay: ClickScenario = {
  id: 1,
  name: 'double pay: two Click payments for one order',
  defends: 'repeated payment attempt',
  criterion:
    'two Click payments (two tabs) pay the same order at once, then a third after: exactly one is completed, the ' +
    'others refused with -4 (already paid) or -9 (cancelled by the newer Prepare), one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const [a, b] = await Promise.all([ctx.payer().pay(order), ctx.payer().pay(order)]);
    const late = await ctx.payer().pay(order);
    const all = [a, b, late];
    ctx.note(`payments: ${all.map(describeClickPay).join('; ')}`);
    const completed = all.filter((r) => r.outcome === 'completed');
    ctx.expect(completed.length === 1, `${completed.length} of 3 payments completed, expected exactly 1`);
    for (const r of all.filter((x) => x.outcome !== 'completed')) {
      ctx.expect(
        r.outcome === 'refused' && REFUSALS.includes(r.refusedWith ?? 0),
        `a second payment for a paid (or being paid) order: expected refused with -4 or -9, got ${describeClickPay(r)}`,
      );
    }
    return ctx.conclude();
  },
};

/** Click storm scenario 2: every call ×10 at once. */
export const clickParallelCopies: ClickScenario = {
  id: 2,
  name: 'parallel copies: Prepare and Complete ×10 at once',
  defends: 'repeated HTTP request',
  criterion:
    'Prepare and Complete each sent as 10 simultaneous copies: every copy answers the same, one completed ' +
    'payment, one paid transition, one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const result = await ctx.payer().pay(order, { parallel: 10 });
    ctx.note(`payment: ${describeClickPay(result)}`);
    expectCompleted(ctx, result, 'paid with 10 parallel copies of each call');
    return ctx.conclude();
  },
};

/** Click storm scenario 3: lost answers and timeouts, then Click's repeat. */
export const clickLostAnswer: ClickScenario = {
  id: 3,
  name: 'lost answer, then Click’s repeat',
  defends: 'repeated HTTP request',
  criterion:
    'the first answer of Prepare and Complete is lost (one order) or times out (another), and Click repeats the ' +
    'call: the repeat answers from the stored state, each order completed once and fulfilled once',
  async run(ctx) {
    const lost = await ctx.newOrder();
    const slow = await ctx.newOrder();
    const [a, b] = await Promise.all([
      ctx.payer().pay(lost, { lostAnswer: true }),
      ctx.payer().pay(slow, { timeout: true }),
    ]);
    ctx.note(`lost answers: ${describeClickPay(a)}; timeouts: ${describeClickPay(b)}`);
    expectCompleted(ctx, a, 'paid with every first answer lost');
    expectCompleted(ctx, b, 'paid with every first call timed out');
    return ctx.conclude();
  },
};

/** Click storm scenario 4: every call repeated 3 times after its answer. */
export const clickDuplicates: ClickScenario = {
  id: 4,
  name: 'duplicate calls: Prepare and Complete 3 more times',
  defends: 'repeated business effect',
  criterion:
    'Prepare and Complete each repeated 3 times after their answer: every repeat answers the same (the stored ' +
    'merchant_prepare_id / merchant_confirm_id, or -4 to a repeated Complete), one completed payment, one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const result = await ctx.payer().pay(order, { duplicate: 3 });
    ctx.note(`payment: ${describeClickPay(result)}`);
    expectCompleted(ctx, result, 'paid with every call repeated 3 times');
    return ctx.conclude();
  },
};

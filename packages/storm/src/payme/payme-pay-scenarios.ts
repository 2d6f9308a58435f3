import { isAccountCode, PAYME_CODES, type PaymePayResult } from '@payonce/sandbox/payme';
import type { PaymeScenario } from './payme-scenario.js';
import { describePay, expectPerformed } from './payme-steps.js';

/** Payme's documented refusals of a transaction for an order that has one: -31008 or the account range. */
const isRefusal = (r: PaymePayResult): boolean =>
  r.outcome === 'refused' && (r.refusedWith === PAYME_CODES.impossible || isAccountCode(r.refusedWith));

/** Payme storm scenario 1: two Payme transactions for one order. */
export const paymeDoublePay: PaymeScenario = {
  id: 1,
  name: 'double pay: two Payme transactions for one order',
  defends: 'repeated payment attempt',
  criterion:
    'two Payme transactions pay the same order at once, then a third after: exactly one is performed, the others ' +
    'are refused (-31008, or an account error -31050…-31099), one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const [a, b] = await Promise.all([ctx.payer().pay(order), ctx.payer().pay(order)]);
    const late = await ctx.payer().pay(order);
    const all = [a, b, late];
    ctx.note(`payments: ${all.map(describePay).join('; ')}`);
    const performed = all.filter((r) => r.outcome === 'performed');
    ctx.expect(performed.length === 1, `${performed.length} of 3 transactions performed, expected exactly 1`);
    for (const r of all.filter((x) => x.outcome !== 'performed')) {
      ctx.expect(
        isRefusal(r),
        `a second transaction for a paid (or being paid) order: expected refused with -31008 or -31050…-31099, got ${describePay(r)}`,
      );
    }
    return ctx.conclude();
  },
};

/** Payme storm scenario 2: every call ×10 at once. */
export const paymeParallelCopies: PaymeScenario = {
  id: 2,
  name: 'parallel copies: every call ×10 at once',
  defends: 'repeated HTTP request',
  criterion:
    'CreateTransaction, PerformTransaction each sent as 10 simultaneous copies: every copy answers the same, one ' +
    'transaction, one perform, one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const result = await ctx.payer().pay(order, { parallel: 10 });
    ctx.note(`payment: ${describePay(result)}`);
    expectPerformed(ctx, result, 'paid with 10 parallel copies of each call');
    return ctx.conclude();
  },
};

/** Payme storm scenario 3: lost answers and timeouts, then Payme's repeat. */
export const paymeLostAnswer: PaymeScenario = {
  id: 3,
  name: 'lost answer, then the repeat',
  defends: 'repeated HTTP request',
  criterion:
    'each write call’s first answer is lost (one order) or times out (another), and Payme repeats it: the repeat ' +
    'answers from the current state, each order is performed once and fulfilled once',
  async run(ctx) {
    const lost = await ctx.newOrder();
    const slow = await ctx.newOrder();
    const [a, b] = await Promise.all([
      ctx.payer().pay(lost, { lostAnswer: true }),
      ctx.payer().pay(slow, { timeout: true }),
    ]);
    ctx.note(`lost answers: ${describePay(a)}; timeouts: ${describePay(b)}`);
    expectPerformed(ctx, a, 'paid with every first answer lost');
    expectPerformed(ctx, b, 'paid with every first call timed out');
    return ctx.conclude();
  },
};

/** Payme storm scenario 4: every write call repeated 3 times after its answer. */
export const paymeDuplicates: PaymeScenario = {
  id: 4,
  name: 'duplicate calls: every write call 3 more times',
  defends: 'repeated business effect',
  criterion:
    'CreateTransaction and PerformTransaction each repeated 3 times after their answer: every repeat answers the ' +
    'same (the stored create_time and perform_time), one perform, one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const result = await ctx.payer().pay(order, { duplicate: 3 });
    ctx.note(`payment: ${describePay(result)}`);
    expectPerformed(ctx, result, 'paid with every write call repeated 3 times');
    return ctx.conclude();
  },
};

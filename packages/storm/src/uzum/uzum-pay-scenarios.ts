import { UZUM_CODES, type UzumPayResult } from '@payonce/sandbox/uzum';
import type { UzumContext, UzumScenario } from './uzum-scenario.js';
import { describeUzumPay } from './uzum-storm-context.js';

/** Records a failure unless the payment ended confirmed. */
export function expectConfirmed(ctx: UzumContext, result: UzumPayResult, what: string): boolean {
  return ctx.expect(result.outcome === 'confirmed', `${what}: expected confirmed, got ${describeUzumPay(result)}`);
}

/** Uzum storm scenario 1: two Uzum transactions for one order. */
export const uzumDoublePay: UzumScenario = {
  id: 1,
  name: 'double pay: two Uzum transactions for one order',
  defends: 'repeated payment attempt',
  criterion:
    'two Uzum Bank transactions (two tabs) pay the same order at once, then a third after: exactly one is ' +
    'confirmed, the others refused by /check or /create with 10008 (paid, or another live transaction)',
  async run(ctx) {
    const order = await ctx.newOrder();
    const [a, b] = await Promise.all([ctx.payer().pay(order), ctx.payer().pay(order)]);
    const late = await ctx.payer().pay(order);
    const all = [a, b, late];
    ctx.note(`payments: ${all.map(describeUzumPay).join('; ')}`);
    const confirmed = all.filter((r) => r.outcome === 'confirmed');
    ctx.expect(confirmed.length === 1, `${confirmed.length} of 3 transactions confirmed, expected exactly 1`);
    for (const r of all.filter((x) => x.outcome !== 'confirmed')) {
      ctx.expect(
        r.outcome === 'refused' && r.refusedWith === UZUM_CODES.alreadyPaid,
        `a second transaction for a paid (or being paid) order: expected refused with 10008, got ${describeUzumPay(r)}`,
      );
    }
    return ctx.conclude();
  },
};

/** Uzum storm scenario 2: every write call ×10 at once. */
export const uzumParallelCopies: UzumScenario = {
  id: 2,
  name: 'parallel copies: /create and /confirm ×10 at once',
  defends: 'repeated HTTP request',
  criterion:
    '/create and /confirm each sent as 10 simultaneous copies: every copy answers the same, one confirmed ' +
    'transaction, one paid transition, one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const result = await ctx.payer().pay(order, { parallel: 10 });
    ctx.note(`payment: ${describeUzumPay(result)}`);
    expectConfirmed(ctx, result, 'paid with 10 parallel copies of each write call');
    return ctx.conclude();
  },
};

/** Uzum storm scenario 3: lost answers and timeouts, then Uzum Bank's /status and repeat. */
export const uzumLostAnswer: UzumScenario = {
  id: 3,
  name: 'lost answer, then /status and the repeat',
  defends: 'repeated HTTP request',
  criterion:
    'the first answer of /create and /confirm is lost (one order) or times out (another); Uzum Bank asks /status ' +
    'and repeats: the answers agree with /status, each order confirmed once and fulfilled once',
  async run(ctx) {
    const lost = await ctx.newOrder();
    const slow = await ctx.newOrder();
    const [a, b] = await Promise.all([
      ctx.payer().pay(lost, { lostAnswer: true }),
      ctx.payer().pay(slow, { timeout: true }),
    ]);
    ctx.note(`lost answers: ${describeUzumPay(a)}; timeouts: ${describeUzumPay(b)}`);
    expectConfirmed(ctx, a, 'paid with every first answer lost');
    expectConfirmed(ctx, b, 'paid with every first call timed out');
    return ctx.conclude();
  },
};

/** Uzum storm scenario 4: every write call repeated 3 times after its answer. */
export const uzumDuplicates: UzumScenario = {
  id: 4,
  name: 'duplicate calls: /create and /confirm 3 more times',
  defends: 'repeated business effect',
  criterion:
    '/create and /confirm each repeated 3 times after their answer: every repeat answers the same (the stored ' +
    'transTime / confirmTime), one confirmed transaction, one fulfilment',
  async run(ctx) {
    const order = await ctx.newOrder();
    const result = await ctx.payer().pay(order, { duplicate: 3 });
    ctx.note(`payment: ${describeUzumPay(result)}`);
    expectConfirmed(ctx, result, 'paid with every write call repeated 3 times');
    return ctx.conclude();
  },
};

import { UZUM_CODES, type UzumAuthMode } from '@payonce/sandbox/uzum';
import { payCharged } from '../provider/pay-scenarios.js';
import { UZUM_PAY_WORDS } from './uzum-pay-scenarios.js';
import type { UzumContext, UzumScenario } from './uzum-scenario.js';
import { describeUzumExchange } from './uzum-storm-context.js';
import type { UzumStormOrder } from './uzum-storm-target.js';

/** Creates a transaction for `order` with a single /create; records a failure unless it answered CREATED. */
export async function created(ctx: UzumContext, order: UzumStormOrder): Promise<string> {
  const transId = ctx.newTransId();
  const fields = { transId, params: order.params, amount: order.amountTiyin };
  ctx.expectStatus(await ctx.call({ operation: 'create', fields }), '/create', 'CREATED');
  return transId;
}

/** Uzum storm scenario 5: calls out of order: confirm before create, confirm after reverse, repeated reverse. */
export const uzumOutOfOrder: UzumScenario = {
  id: 5,
  name: 'out-of-order calls: confirm before create, after reverse',
  defends: 'repeated business effect',
  criterion:
    '/confirm and /reverse of an unknown transId → 10014; /create → /reverse → /confirm → 10015 (never a stale ' +
    'CONFIRMED), the repeated /reverse answers the stored reverseTime; the order is then paid by a new transaction once',
  async run(ctx) {
    const order = await ctx.newOrder();
    const ghost = ctx.newTransId();
    for (const operation of ['confirm', 'reverse']) {
      ctx.expectFailed(await ctx.call({ operation, fields: { transId: ghost } }), `/${operation} before /create`, [
        UZUM_CODES.transactionNotFound,
      ]);
    }
    const transId = await created(ctx, order);
    const first = await ctx.call({ operation: 'reverse', fields: { transId } });
    ctx.expectStatus(first, '/reverse before /confirm', 'REVERSED');
    ctx.expectFailed(await ctx.call({ operation: 'confirm', fields: { transId } }), '/confirm after /reverse', [
      UZUM_CODES.transactionCancelled,
    ]);
    const again = await ctx.call({ operation: 'reverse', fields: { transId } });
    ctx.expect(
      again.answer?.status === 'REVERSED' && again.answer?.reverseTime === first.answer?.reverseTime,
      `the repeated /reverse answered ${describeUzumExchange(again)} after ${describeUzumExchange(first)}`,
    );
    await payCharged(
      ctx,
      UZUM_PAY_WORDS,
      order,
      'after the reversed transaction, a new one',
      'a new transaction for the order whose first was reversed',
    );
    return ctx.conclude();
  },
};

const FORGED: readonly UzumAuthMode[] = ['wrong-password', 'none'];

/** Uzum storm scenario 6: calls with a wrong password and with no Authorization. */
export const uzumForgedAuth: UzumScenario = {
  id: 6,
  name: 'forged auth: wrong Basic credentials, none',
  defends: 'repeated business effect',
  criterion:
    '/check, /create, /confirm and /reverse with a wrong password or no Authorization → 10001 each; nothing is ' +
    'created, confirmed or reversed (/status shows it), nothing paid or fulfilled',
  async run(ctx) {
    const order = await ctx.newOrder();
    const ghost = ctx.newTransId();
    const real = await created(ctx, order);
    for (const auth of FORGED) {
      const calls = [
        { operation: 'check', fields: { params: order.params } },
        { operation: 'create', fields: { transId: ghost, params: order.params, amount: order.amountTiyin } },
        { operation: 'confirm', fields: { transId: real } },
        { operation: 'reverse', fields: { transId: real } },
      ];
      for (const call of calls) {
        ctx.expectFailed(await ctx.call({ ...call, auth }), `/${call.operation} (${auth})`, [UZUM_CODES.accessDenied]);
      }
    }
    ctx.expectFailed(
      await ctx.call({ operation: 'status', fields: { transId: ghost } }),
      '/status of the forged /create',
      [UZUM_CODES.transactionNotFound],
    );
    ctx.expectStatus(
      await ctx.call({ operation: 'status', fields: { transId: real } }),
      'the transaction after forged /confirm and /reverse',
      'CREATED',
    );
    ctx.expectStatus(await ctx.call({ operation: 'reverse', fields: { transId: real } }), '/reverse', 'REVERSED');
    return ctx.conclude();
  },
};

/** Uzum storm scenario 7: another amount, an unknown account. */
export const uzumForeignAmountAccount: UzumScenario = {
  id: 7,
  name: 'foreign amount and unknown account',
  defends: 'repeated payment attempt',
  criterion:
    '/create with ±1 sum → 10011, /check and /create with params naming no order → 10007; none of them creates a ' +
    'transaction (/status → 10014); the order is then paid with its own amount once',
  async run(ctx) {
    const order = await ctx.newOrder();
    const refused: string[] = [];
    for (const amount of [order.amountTiyin + 100, order.amountTiyin - 100]) {
      const transId = ctx.newTransId();
      refused.push(transId);
      ctx.expectFailed(
        await ctx.call({ operation: 'create', fields: { transId, params: order.params, amount } }),
        `/create of ${amount} instead of ${order.amountTiyin} tiyin`,
        [UZUM_CODES.invalidAmount],
      );
    }
    const field = Object.keys(order.params)[0] ?? 'account';
    const foreign = { ...order.params, [field]: `storm-no-such-order-${ctx.newTransId().slice(0, 12)}` };
    ctx.expectFailed(
      await ctx.call({ operation: 'check', fields: { params: foreign } }),
      '/check of an unknown account',
      [UZUM_CODES.accountNotFound],
    );
    const unknown = ctx.newTransId();
    refused.push(unknown);
    ctx.expectFailed(
      await ctx.call({ operation: 'create', fields: { transId: unknown, params: foreign, amount: order.amountTiyin } }),
      '/create for an unknown account',
      [UZUM_CODES.accountNotFound],
    );
    for (const transId of refused) {
      ctx.expectFailed(await ctx.call({ operation: 'status', fields: { transId } }), 'a refused /create', [
        UZUM_CODES.transactionNotFound,
      ]);
    }
    await payCharged(ctx, UZUM_PAY_WORDS, order, 'then with its own amount', 'the order with its own amount');
    return ctx.conclude();
  },
};

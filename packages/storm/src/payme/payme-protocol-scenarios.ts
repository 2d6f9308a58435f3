import type { PaymeAuthMode } from '@payonce/sandbox/payme';
import { isAccountCode, PAYME_CODES, PAYME_REASONS } from '@payonce/sandbox/payme';
import type { PaymeScenario } from './payme-scenario.js';
import { createParams, describePay, expectPerformed, expectState } from './payme-steps.js';
import { codeOf, describeExchange } from './payme-storm-context.js';

/** Payme storm scenario 5: calls out of order, and a cancel racing a perform. */
export const paymeOutOfOrder: PaymeScenario = {
  id: 5,
  name: 'out-of-order calls: cancel before perform',
  defends: 'repeated business effect',
  criterion:
    'Perform and Cancel of an unknown id → -31003; Create → Cancel → Perform and Create again → -31008 (never a ' +
    'stale state 1 or 2), the repeated Cancel answers the stored cancel_time; the order is then paid by a new ' +
    'transaction once; a Cancel racing a Perform on another order leaves Payme and the merchant agreeing',
  async run(ctx) {
    const order = await ctx.newOrder();
    const id = ctx.newId();
    const cancel = { method: 'CancelTransaction', params: { id, reason: PAYME_REASONS.executionFailed } };
    ctx.expectError(
      await ctx.call({ method: 'PerformTransaction', params: { id } }),
      'Perform before Create',
      PAYME_CODES.transactionNotFound,
    );
    ctx.expectError(await ctx.call(cancel), 'Cancel before Create', PAYME_CODES.transactionNotFound);
    const params = createParams(ctx, id, order);
    expectState(ctx, await ctx.call({ method: 'CreateTransaction', params }), 1, 'Create');
    const first = await ctx.call(cancel);
    expectState(ctx, first, -1, 'Cancel before Perform');
    const perform = await ctx.call({ method: 'PerformTransaction', params: { id } });
    ctx.expectError(perform, 'Perform after Cancel', PAYME_CODES.impossible);
    ctx.expectError(
      await ctx.call({ method: 'CreateTransaction', params }),
      'Create again after Cancel',
      PAYME_CODES.impossible,
    );
    const again = await ctx.call(cancel);
    ctx.expect(
      again.answer?.result?.cancel_time === first.answer?.result?.cancel_time && again.answer?.result?.state === -1,
      `the repeated Cancel answered ${describeExchange(again)} after ${describeExchange(first)}`,
    );
    const paid = await ctx.payer().pay(order);
    ctx.note(`after the cancelled transaction, a new one: ${describePay(paid)}`);
    expectPerformed(ctx, paid, 'a new transaction for the order whose first was cancelled');
    const raced = await ctx.payer().pay(await ctx.newOrder(), { cancelWhilePerforming: true });
    ctx.note(`Perform and Cancel (reason 3) at once: ${describePay(raced)}`);
    ctx.expect(
      raced.outcome === 'performed' || raced.outcome === 'cancelled',
      `a Cancel racing a Perform left the transaction ${describePay(raced)}`,
    );
    return ctx.conclude();
  },
};

const FORGED: readonly PaymeAuthMode[] = ['wrong-key', 'wrong-login', 'none'];

/** Payme storm scenario 6: calls with a wrong key, a wrong login and no Authorization. */
export const paymeForgedAuth: PaymeScenario = {
  id: 6,
  name: 'forged auth: wrong key, wrong login, none',
  defends: 'repeated business effect',
  criterion:
    'CheckPerform, Create, Perform and Cancel with a wrong key, a wrong login or no Authorization → -32504 each; ' +
    'nothing is created, performed or cancelled (CheckTransaction shows it), nothing paid or fulfilled',
  async run(ctx) {
    const order = await ctx.newOrder();
    const ghost = ctx.newId();
    const real = ctx.newId();
    expectState(
      ctx,
      await ctx.call({ method: 'CreateTransaction', params: createParams(ctx, real, order) }),
      1,
      'Create',
    );
    for (const auth of FORGED) {
      const calls = [
        { method: 'CheckPerformTransaction', params: { amount: order.amount, account: order.account } },
        { method: 'CreateTransaction', params: createParams(ctx, ghost, order) },
        { method: 'PerformTransaction', params: { id: real } },
        { method: 'CancelTransaction', params: { id: real, reason: PAYME_REASONS.executionFailed } },
      ];
      for (const call of calls) {
        ctx.expectError(
          await ctx.call({ ...call, auth }),
          `${call.method} (${auth})`,
          PAYME_CODES.insufficientPrivilege,
        );
      }
    }
    ctx.expectError(
      await ctx.call({ method: 'CheckTransaction', params: { id: ghost } }),
      'CheckTransaction of the forged Create',
      PAYME_CODES.transactionNotFound,
    );
    expectState(
      ctx,
      await ctx.call({ method: 'CheckTransaction', params: { id: real } }),
      1,
      'the transaction after forged Perform and Cancel',
    );
    const cancel = { id: real, reason: PAYME_REASONS.executionFailed };
    expectState(ctx, await ctx.call({ method: 'CancelTransaction', params: cancel }), -1, 'Cancel with the key');
    return ctx.conclude();
  },
};

/** Payme storm scenario 7: another amount, an unknown account. */
export const paymeForeignAmountAccount: PaymeScenario = {
  id: 7,
  name: 'foreign amount and account',
  defends: 'repeated payment attempt',
  criterion:
    'CheckPerform and Create with another amount → -31001, with an account naming no order → -31050…-31099; none ' +
    'of them creates a transaction; the order is then paid with its own amount once',
  async run(ctx) {
    const order = await ctx.newOrder();
    const field = Object.keys(order.account)[0] ?? 'order_id';
    const foreign = { ...order.account, [field]: `storm-no-such-order-${ctx.newId().slice(0, 12)}` };
    const wrongAmount = ctx.newId();
    const unknown = ctx.newId();
    const amounts = [order.amount + 100, order.amount - 100];
    for (const amount of amounts) {
      ctx.expectError(
        await ctx.call({ method: 'CheckPerformTransaction', params: { amount, account: order.account } }),
        `CheckPerform with ${amount} instead of ${order.amount} tiyin`,
        PAYME_CODES.wrongAmount,
      );
    }
    ctx.expectError(
      await ctx.call({ method: 'CreateTransaction', params: createParams(ctx, wrongAmount, order, amounts[0]) }),
      'Create with another amount',
      PAYME_CODES.wrongAmount,
    );
    const checkForeign = await ctx.call({
      method: 'CheckPerformTransaction',
      params: { amount: order.amount, account: foreign },
    });
    ctx.expectError(checkForeign, 'CheckPerform of an unknown account', PAYME_CODES.accountFirst, isAccountCode);
    const createForeign = await ctx.call({
      method: 'CreateTransaction',
      params: { id: unknown, time: ctx.now(), amount: order.amount, account: foreign },
    });
    ctx.expectError(createForeign, 'Create for an unknown account', PAYME_CODES.accountFirst, isAccountCode);
    for (const id of [wrongAmount, unknown]) {
      const check = await ctx.call({ method: 'CheckTransaction', params: { id } });
      ctx.expect(
        codeOf(check) === PAYME_CODES.transactionNotFound,
        `a refused Create left a transaction: ${describeExchange(check)}`,
      );
    }
    const paid = await ctx.payer().pay(order);
    ctx.note(`then with its own amount: ${describePay(paid)}`);
    expectPerformed(ctx, paid, 'the order with its own amount');
    return ctx.conclude();
  },
};

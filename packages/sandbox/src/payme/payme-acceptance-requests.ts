import type { PaymeRunner } from './payme-battery-transaction.js';
import { isAccountCode, PAYME_CODES } from './payme-codes.js';
import { SOURCES } from './payme-doc-sources.js';
import { accountRefused, notPayable } from './payme-not-payable.js';
import type { PaymeTestOrder } from './payme-test-orders.js';
import { expectError, expectResult } from './payme-verdicts.js';

/**
 * The checks that need no transaction: credentials (wrong password, wrong login, none), the order checks of
 * CheckPerformTransaction (wrong amount, unknown account, a payable order), an unknown method and a body that is
 * not JSON. The first call with the order's account (the wrong-amount check) also tells whether the order is payable:
 * refused with an account error at its own amount too, it is not, and the runner stops there (`runner.stopped`).
 */
export async function requestChecks(
  runner: PaymeRunner,
  order: PaymeTestOrder,
  unknownAccount: Readonly<Record<string, unknown>>,
): Promise<void> {
  const params = { amount: order.amount, account: order.account };
  for (const [auth, what] of [
    ['wrong-key', 'a wrong key'],
    ['wrong-login', 'a login other than Paycom'],
    ['none', 'no Authorization header'],
  ] as const) {
    await runner.check(
      {
        name: `credentials: ${what}`,
        expected: `error ${PAYME_CODES.insufficientPrivilege}`,
        why: `a call not authorised by "Paycom:<key>" is refused with -32504 before anything else — ${SOURCES.errors}; ${SOURCES.auth}`,
      },
      async (call) =>
        expectError(
          await call({ method: 'CheckPerformTransaction', params, auth }),
          (c) => c === PAYME_CODES.insufficientPrivilege,
        ),
    );
  }
  await runner.check(
    {
      name: 'CheckPerformTransaction: wrong amount',
      expected: `error ${PAYME_CODES.wrongAmount}`,
      why: `an amount other than the order's is refused with -31001 (one-time invoices) — ${SOURCES.checkPerform}`,
    },
    async (call) => {
      const exchange = await call({
        method: 'CheckPerformTransaction',
        params: { ...params, amount: order.amount + 100 },
      });
      if (!accountRefused(exchange)) return expectError(exchange, (c) => c === PAYME_CODES.wrongAmount);
      const own = await call({ method: 'CheckPerformTransaction', params });
      return accountRefused(own) ? notPayable(order, own) : expectError(exchange, (c) => c === PAYME_CODES.wrongAmount);
    },
  );
  if (runner.stopped !== null) return;
  await runner.check(
    {
      name: 'CheckPerformTransaction: unknown account',
      expected: 'an error -31050 … -31099 with a message',
      why: `account input errors use -31050 … -31099, with a localised message and the account field as data — ${SOURCES.errors}`,
    },
    async (call) => {
      const exchange = await call({
        method: 'CheckPerformTransaction',
        params: { ...params, account: unknownAccount },
      });
      const verdict = expectError(exchange, isAccountCode);
      if (verdict.passed && exchange.answer?.error?.message === undefined)
        return { passed: false, got: `${verdict.got} without a message` };
      return verdict;
    },
  );
  await runner.check(
    {
      name: 'CheckPerformTransaction: payable order',
      expected: 'result { allow: true }',
      why: `a payable order of this amount is answered allow: true — ${SOURCES.checkPerform}`,
    },
    async (call) =>
      expectResult(await call({ method: 'CheckPerformTransaction', params }), { allow: (v) => v === true }),
  );
  await runner.check(
    {
      name: 'unknown method',
      expected: `error ${PAYME_CODES.methodNotFound}`,
      why: `a method the Merchant API does not define is -32601 — ${SOURCES.errors}`,
    },
    async (call) =>
      expectError(
        await call({ method: 'PaymeSandboxNoSuchMethod', params: {} }),
        (c) => c === PAYME_CODES.methodNotFound,
      ),
  );
  await runner.check(
    {
      name: 'malformed JSON',
      expected: `error ${PAYME_CODES.parse}`,
      why: `a body that cannot be parsed as JSON is -32700 — ${SOURCES.errors}`,
    },
    async (call) =>
      expectError(
        await call({ method: '(malformed)', rawBody: '{"method": "CheckPerformTransaction", "params": {' }),
        (c) => c === PAYME_CODES.parse,
      ),
  );
}

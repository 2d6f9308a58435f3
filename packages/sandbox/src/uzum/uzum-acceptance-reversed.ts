import type { UzumBatteryTransaction, UzumRunner } from './uzum-battery.js';
import { UZUM_CODES } from './uzum-codes.js';
import { SOURCES } from './uzum-doc-sources.js';
import { expectFailed, expectStatus, isTime, same } from './uzum-verdicts.js';

/**
 * The life of a reversed transaction, on the second order: /confirm before /create (10014), /create, /reverse
 * (REVERSED, reverseTime), /reverse again (the same reverseTime, or 10018), /confirm after the reverse (10015),
 * /status (REVERSED, confirmTime null).
 */
export async function uzumReversedChecks(runner: UzumRunner, tx: UzumBatteryTransaction): Promise<void> {
  const confirm = { operation: 'confirm', fields: { transId: tx.transId } };
  await runner.check(
    {
      name: '/confirm before /create (out of order)',
      expected: `FAILED ${UZUM_CODES.transactionNotFound}`,
      why: `a transId not created yet is unknown: 10014 (unconfirmed code), and nothing is confirmed — ${SOURCES.errors}; ${SOURCES.confirm}`,
    },
    async (call) => expectFailed(await call(confirm), [UZUM_CODES.transactionNotFound]),
  );
  await runner.check(
    {
      name: '/create (second order)',
      expected: 'CREATED, transTime',
      why: `as for the first order; the refused /confirm left nothing behind — ${SOURCES.create}`,
    },
    async (call) => {
      const fields = { transId: tx.transId, params: tx.order.params, amount: tx.order.amountTiyin };
      const exchange = await call({ operation: 'create', fields });
      tx.transTime = exchange.answer?.transTime;
      return expectStatus(exchange, 'CREATED', { transTime: isTime });
    },
  );
  const reverse = { operation: 'reverse', fields: { transId: tx.transId } };
  await runner.check(
    {
      name: '/reverse',
      expected: 'REVERSED, reverseTime',
      why: `/reverse cancels a transaction — ${SOURCES.reverse}`,
    },
    async (call) => {
      const exchange = await call(reverse);
      tx.reverseTime = exchange.answer?.reverseTime;
      return expectStatus(exchange, 'REVERSED', { reverseTime: isTime, transId: same(tx.transId) });
    },
  );
  await runner.check(
    {
      name: '/reverse repeated',
      expected: `REVERSED with the same reverseTime (${String(tx.reverseTime)}), or FAILED ${UZUM_CODES.alreadyReversed}`,
      why: `a reversed transaction stays reversed; sources differ on the answer (REVERSED again, or 10018) — ${SOURCES.ambiguous}`,
    },
    async (call) => {
      const exchange = await call(reverse);
      const refused = expectFailed(exchange, [UZUM_CODES.alreadyReversed]);
      return refused.passed ? refused : expectStatus(exchange, 'REVERSED', { reverseTime: same(tx.reverseTime) });
    },
  );
  await runner.check(
    {
      name: '/confirm after /reverse',
      expected: `FAILED ${UZUM_CODES.transactionCancelled}`,
      why: `a reversed transaction cannot be confirmed: 10015 (unconfirmed code), whatever an earlier call answered — ${SOURCES.errors}`,
    },
    async (call) => expectFailed(await call(confirm), [UZUM_CODES.transactionCancelled]),
  );
  await runner.check(
    {
      name: '/status after reverse',
      expected: 'REVERSED, the stored transTime and reverseTime, confirmTime null',
      why: `/status reports the current status and the stored times — ${SOURCES.status}`,
    },
    async (call) =>
      expectStatus(await call({ operation: 'status', fields: { transId: tx.transId } }), 'REVERSED', {
        transTime: same(tx.transTime),
        reverseTime: same(tx.reverseTime),
        confirmTime: (v) => v === null || v === undefined,
      }),
  );
}

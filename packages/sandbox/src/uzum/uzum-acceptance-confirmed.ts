import { ownAmountRefused } from '../acceptance/setup-mistakes.js';
import type { UzumBatteryTransaction, UzumRunner } from './uzum-battery.js';
import { UZUM_CODES } from './uzum-codes.js';
import { SOURCES } from './uzum-doc-sources.js';
import { expectFailed, expectStatus, isTime, same, uzumErrorCode } from './uzum-verdicts.js';

/**
 * The life of a confirmed transaction: /create (CREATED, transTime, amount), the same /create again (the same
 * transTime), /status (CREATED), /confirm (CONFIRMED, confirmTime), /confirm again (the same confirmTime, or 10016),
 * /status (CONFIRMED with both stored times). A /create refused with 10011 at the order's own amount stops the
 * battery (amounts given in sum, not tiyin).
 */
export async function uzumConfirmedChecks(runner: UzumRunner, tx: UzumBatteryTransaction): Promise<void> {
  const create = {
    operation: 'create',
    fields: { transId: tx.transId, params: tx.order.params, amount: tx.order.amountTiyin },
  };
  await runner.check(
    {
      name: '/create',
      expected: 'CREATED, transTime, transId and amount echoed',
      why: `a new transaction for a payable order is CREATED with the merchant's transTime — ${SOURCES.create}`,
    },
    async (call) => {
      const exchange = await call(create);
      if (uzumErrorCode(exchange) === UZUM_CODES.invalidAmount) {
        return { passed: false, halt: true, got: ownAmountRefused(tx.order.amountTiyin, UZUM_CODES.invalidAmount) };
      }
      tx.transTime = exchange.answer?.transTime;
      return expectStatus(exchange, 'CREATED', {
        transTime: isTime,
        transId: same(tx.transId),
        amount: same(tx.order.amountTiyin),
      });
    },
  );
  await runner.check(
    {
      name: '/create repeated',
      expected: `CREATED with the same transTime (${String(tx.transTime)})`,
      why: `Uzum Bank repeats a call it got no answer to; the same transId is the same transaction — ${SOURCES.create}`,
    },
    async (call) => expectStatus(await call(create), 'CREATED', { transTime: same(tx.transTime) }),
  );
  const status = { operation: 'status', fields: { transId: tx.transId } };
  await runner.check(
    {
      name: '/status after create',
      expected: 'CREATED, the stored transTime, confirmTime and reverseTime null',
      why: `/status reports the transaction's current status and stored times — ${SOURCES.status}`,
    },
    async (call) =>
      expectStatus(await call(status), 'CREATED', {
        transTime: same(tx.transTime),
        confirmTime: (v) => v === null || v === undefined,
        reverseTime: (v) => v === null || v === undefined,
      }),
  );
  const confirm = { operation: 'confirm', fields: { transId: tx.transId } };
  await runner.check(
    {
      name: '/confirm',
      expected: 'CONFIRMED, confirmTime',
      why: `/confirm of a CREATED transaction confirms it: the merchant provides the service — ${SOURCES.confirm}`,
    },
    async (call) => {
      const exchange = await call(confirm);
      tx.confirmTime = exchange.answer?.confirmTime;
      return expectStatus(exchange, 'CONFIRMED', { confirmTime: isTime, transId: same(tx.transId) });
    },
  );
  await runner.check(
    {
      name: '/confirm repeated',
      expected: `CONFIRMED with the same confirmTime (${String(tx.confirmTime)}), or FAILED ${UZUM_CODES.alreadyConfirmed}`,
      why: `a confirmed transaction is never confirmed twice; sources differ on the answer (CONFIRMED again, or 10016) — ${SOURCES.ambiguous}`,
    },
    async (call) => {
      const exchange = await call(confirm);
      const refused = expectFailed(exchange, [UZUM_CODES.alreadyConfirmed]);
      return refused.passed ? refused : expectStatus(exchange, 'CONFIRMED', { confirmTime: same(tx.confirmTime) });
    },
  );
  await runner.check(
    {
      name: '/status after confirm',
      expected: 'CONFIRMED, the stored transTime and confirmTime',
      why: `/status is what Uzum Bank asks after an unclear answer; it must give the stored times — ${SOURCES.status}`,
    },
    async (call) =>
      expectStatus(await call(status), 'CONFIRMED', {
        transTime: same(tx.transTime),
        confirmTime: same(tx.confirmTime),
      }),
  );
}

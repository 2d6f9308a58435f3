import type { BatteryTransaction, PaymeRunner } from './payme-battery-transaction.js';
import { isAccountCode, PAYME_CODES, PAYME_REASONS } from './payme-codes.js';
import { SOURCES } from './payme-doc-sources.js';
import type { PaymeTestOrder } from './payme-test-orders.js';
import { expectError, expectResult } from './payme-verdicts.js';

const isTime = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const isId = (v: unknown) => (typeof v === 'string' && v !== '') || (typeof v === 'number' && Number.isFinite(v));
const same = (expected: unknown) => (v: unknown) => v === expected;

/**
 * The life of a paid transaction on order A: Create, Create repeated (same create_time), Create for A under another
 * id (-31050…), Perform, Perform repeated (same perform_time), CheckTransaction, Cancel after perform (-2, reason
 * 5), Cancel repeated (same cancel_time), Perform after that cancel (-31008), CheckTransaction after it.
 */
export async function paidChecks(
  runner: PaymeRunner,
  order: PaymeTestOrder,
  tx: BatteryTransaction,
  otherId: string,
): Promise<void> {
  const create = {
    method: 'CreateTransaction',
    params: { id: tx.id, time: tx.time, amount: order.amount, account: order.account },
  };
  await runner.check(
    {
      name: 'CreateTransaction',
      expected: 'result state 1, create_time, transaction',
      why: `a new transaction for a payable order is created in state 1 — ${SOURCES.create}`,
    },
    async (call) => {
      const exchange = await call(create);
      const verdict = expectResult(exchange, { state: same(1), create_time: isTime, transaction: isId });
      tx.created = exchange.answer?.result;
      return verdict;
    },
  );
  await runner.check(
    {
      name: 'CreateTransaction repeated',
      expected: `the same result (create_time ${tx.created?.create_time ?? '?'})`,
      why: `Payme repeats a Create it got no answer to; a known id in state 1 is answered with its STORED create_time — ${SOURCES.create}`,
    },
    async (call) =>
      expectResult(await call(create), {
        state: same(1),
        create_time: same(tx.created?.create_time),
        transaction: same(tx.created?.transaction),
      }),
  );
  await runner.check(
    {
      name: 'CreateTransaction: order already has a live transaction',
      expected: 'an error -31050 … -31099',
      why: `a one-time order holding an active or completed transaction refuses another Payme id — ${SOURCES.create}`,
    },
    async (call) =>
      expectError(
        await call({ ...create, params: { ...create.params, id: otherId, time: tx.time + 1 } }),
        isAccountCode,
      ),
  );
  const perform = { method: 'PerformTransaction', params: { id: tx.id } };
  await runner.check(
    {
      name: 'PerformTransaction',
      expected: 'result state 2, perform_time, the same transaction',
      why: `perform moves state 1 to 2 — ${SOURCES.perform}`,
    },
    async (call) => {
      const exchange = await call(perform);
      tx.performed = exchange.answer?.result;
      return expectResult(exchange, {
        state: same(2),
        perform_time: isTime,
        transaction: same(tx.created?.transaction),
      });
    },
  );
  await runner.check(
    {
      name: 'PerformTransaction repeated',
      expected: `the same result (perform_time ${tx.performed?.perform_time ?? '?'})`,
      why: `a repeated Perform of a state-2 transaction answers the STORED perform_time, never a new one — ${SOURCES.perform}`,
    },
    async (call) =>
      expectResult(await call(perform), { state: same(2), perform_time: same(tx.performed?.perform_time) }),
  );
  await runner.check(
    {
      name: 'CheckTransaction after perform',
      expected: 'create_time, perform_time as answered, cancel_time 0, state 2, reason null',
      why: `CheckTransaction reports the transaction's current state and its stored times — ${SOURCES.check}`,
    },
    async (call) =>
      expectResult(await call({ method: 'CheckTransaction', params: { id: tx.id } }), {
        create_time: same(tx.created?.create_time),
        perform_time: same(tx.performed?.perform_time),
        cancel_time: same(0),
        transaction: same(tx.created?.transaction),
        state: same(2),
        reason: same(null),
      }),
  );
  const cancel = { method: 'CancelTransaction', params: { id: tx.id, reason: PAYME_REASONS.fundReturned } };
  await runner.check(
    {
      name: 'CancelTransaction after perform',
      expected: 'result state -2, cancel_time',
      why: `cancelling a performed transaction (a refund, reason 5) moves it to -2 — ${SOURCES.cancel}`,
    },
    async (call) => {
      const exchange = await call(cancel);
      tx.cancelled = exchange.answer?.result;
      return expectResult(exchange, {
        state: same(-2),
        cancel_time: isTime,
        transaction: same(tx.created?.transaction),
      });
    },
  );
  await runner.check(
    {
      name: 'CancelTransaction repeated',
      expected: `the same result (cancel_time ${tx.cancelled?.cancel_time ?? '?'})`,
      why: `a repeated Cancel of a cancelled transaction answers the STORED cancel_time and state — ${SOURCES.cancel}`,
    },
    async (call) => expectResult(await call(cancel), { state: same(-2), cancel_time: same(tx.cancelled?.cancel_time) }),
  );
  await runner.check(
    {
      name: 'PerformTransaction after cancel (Perform → Cancel → Perform)',
      expected: `error ${PAYME_CODES.impossible}`,
      why: `a cancelled transaction cannot be performed: -31008, whatever the first Perform answered — ${SOURCES.perform}`,
    },
    async (call) => expectError(await call(perform), (c) => c === PAYME_CODES.impossible),
  );
  await runner.check(
    {
      name: 'CheckTransaction after cancel',
      expected: `state -2, reason ${PAYME_REASONS.fundReturned}, the stored perform_time and cancel_time`,
      why: `CheckTransaction keeps every time it set, and the reason Cancel sent — ${SOURCES.check}`,
    },
    async (call) =>
      expectResult(await call({ method: 'CheckTransaction', params: { id: tx.id } }), {
        state: same(-2),
        reason: same(PAYME_REASONS.fundReturned),
        perform_time: same(tx.performed?.perform_time),
        cancel_time: same(tx.cancelled?.cancel_time),
      }),
  );
}

import type { BatteryTransaction, PaymeRunner } from './payme-battery-transaction.js';
import { PAYME_CODES, PAYME_REASONS } from './payme-codes.js';
import { SOURCES } from './payme-doc-sources.js';
import { accountRefused, notPayable } from './payme-not-payable.js';
import { expectError, expectResult } from './payme-verdicts.js';

const same = (expected: unknown) => (v: unknown) => v === expected;

/**
 * The life of a transaction cancelled before perform, on order B: Create, Cancel (-1, reason 3 stored), Cancel
 * repeated, Create again with the same id (-31008), Perform after the cancel (-31008). A Create refused with an
 * account error means order B is not payable: the runner stops there.
 */
export async function cancelledChecks(runner: PaymeRunner, tx: BatteryTransaction): Promise<void> {
  const create = {
    method: 'CreateTransaction',
    params: { id: tx.id, time: tx.time, amount: tx.amount, account: tx.account },
  };
  await runner.check(
    {
      name: 'CreateTransaction (second order)',
      expected: 'result state 1',
      why: `as for the first order — ${SOURCES.create}`,
    },
    async (call) => {
      const exchange = await call(create);
      tx.created = exchange.answer?.result;
      return accountRefused(exchange) ? notPayable(tx, exchange) : expectResult(exchange, { state: same(1) });
    },
  );
  if (runner.stopped !== null) return;
  const cancel = { method: 'CancelTransaction', params: { id: tx.id, reason: PAYME_REASONS.executionFailed } };
  await runner.check(
    {
      name: 'CancelTransaction before perform',
      expected: `result state -1, cancel_time; CheckTransaction then reason ${PAYME_REASONS.executionFailed}`,
      why: `cancelling a created transaction moves it to -1 and stores the reason Payme sent — ${SOURCES.cancel}; ${SOURCES.check}`,
    },
    async (call) => {
      const exchange = await call(cancel);
      tx.cancelled = exchange.answer?.result;
      const verdict = expectResult(exchange, { state: same(-1), cancel_time: (v) => typeof v === 'number' && v > 0 });
      if (!verdict.passed) return verdict;
      return expectResult(await call({ method: 'CheckTransaction', params: { id: tx.id } }), {
        state: same(-1),
        reason: same(PAYME_REASONS.executionFailed),
        perform_time: same(0),
        cancel_time: same(tx.cancelled?.cancel_time),
      });
    },
  );
  await runner.check(
    {
      name: 'CancelTransaction repeated (before perform)',
      expected: `the same result (cancel_time ${tx.cancelled?.cancel_time ?? '?'})`,
      why: `a repeated Cancel answers the STORED cancel_time and state — ${SOURCES.cancel}`,
    },
    async (call) => expectResult(await call(cancel), { state: same(-1), cancel_time: same(tx.cancelled?.cancel_time) }),
  );
  await runner.check(
    {
      name: 'CreateTransaction after cancel, same id (Create → Cancel → Create)',
      expected: `error ${PAYME_CODES.impossible}`,
      why: `a known id in any state but 1 is -31008 — a stored "state 1" answer replayed is wrong — ${SOURCES.create}`,
    },
    async (call) => expectError(await call(create), (c) => c === PAYME_CODES.impossible),
  );
  await runner.check(
    {
      name: 'PerformTransaction after cancel before perform',
      expected: `error ${PAYME_CODES.impossible}`,
      why: `a transaction in state -1 cannot be performed — ${SOURCES.perform}`,
    },
    async (call) =>
      expectError(
        await call({ method: 'PerformTransaction', params: { id: tx.id } }),
        (c) => c === PAYME_CODES.impossible,
      ),
  );
}

/** GetStatement over [first time, last time] holds both transactions, as CheckTransaction reports them, and no other id of the battery. */
export async function statementCheck(
  runner: PaymeRunner,
  transactions: readonly BatteryTransaction[],
  refusedId: string,
): Promise<void> {
  const from = Math.min(...transactions.map((t) => t.time));
  const to = Math.max(...transactions.map((t) => t.time));
  await runner.check(
    {
      name: 'GetStatement',
      expected: `transactions with id, time, amount, account, create_time, perform_time, cancel_time, transaction, state, reason for ${transactions.length} ids`,
      why: `GetStatement lists the transactions created in [from, to] with their current fields — ${SOURCES.statement}`,
    },
    async (call) => {
      const exchange = await call({ method: 'GetStatement', params: { from, to } });
      const verdict = expectResult(exchange, { transactions: Array.isArray });
      if (!verdict.passed) return verdict;
      const listed = exchange.answer?.result?.transactions as Record<string, unknown>[];
      for (const tx of transactions) {
        const entry = listed.find((e) => e?.id === tx.id);
        const wrong = entry === undefined ? 'missing' : statementDifference(entry, tx);
        if (wrong !== null) return { passed: false, got: `${tx.id}: ${wrong}` };
      }
      if (listed.some((e) => e?.id === refusedId))
        return { passed: false, got: `${refusedId} (a refused Create) is listed` };
      return verdict;
    },
  );
}

function statementDifference(entry: Record<string, unknown>, tx: BatteryTransaction): string | null {
  const expected: Record<string, unknown> = {
    time: tx.time,
    amount: tx.amount,
    create_time: tx.created?.create_time,
    perform_time: tx.performed?.perform_time ?? 0,
    cancel_time: tx.cancelled?.cancel_time,
    transaction: tx.created?.transaction,
    state: tx.cancelled?.state,
  };
  for (const [field, value] of Object.entries(expected)) {
    if (entry[field] !== value) return `${field} ${JSON.stringify(entry[field])}, expected ${JSON.stringify(value)}`;
  }
  if (JSON.stringify(entry.account) !== JSON.stringify(tx.account)) return `account ${JSON.stringify(entry.account)}`;
  if (!('reason' in entry)) return 'no reason field';
  return null;
}

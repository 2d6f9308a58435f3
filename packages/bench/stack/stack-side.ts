/**
 * One side of a `stack-<adapter>-vs-own` target (`targets/stack.ts`): the one-commit path of one delivery — claim the
 * receipt, one business INSERT into `bench_ledger`, one outbox row (`outbox.enqueueOnce`), complete, commit — through
 * an adapter of `payonce/tx/*` in a transaction its stack opened (side A), or through payonce's own Kysely
 * transaction (`guard.runInNewTransaction`, side B, `sides/own.ts`). Every side of the registry (`sides/index.ts`)
 * gets the same {@link StackWork} and differs only in who opens the transaction and how the business row is written.
 */
import type { Transaction } from 'kysely';
import type { RunOptions } from 'payonce/internal/core/guard-types.js';
import type { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import type { Outcome } from 'payonce/internal/core/outcome.js';
import type { RequestKey } from 'payonce/internal/core/request-key.js';
import type { PostgresStore } from 'payonce/internal/stores/postgres/postgres-store.js';
import type { ReceiptsDatabase } from 'payonce/internal/stores/sql/receipts-table.js';
import type { NamespaceInfo } from '../lib/namespaces.js';
import type { HANDLER_RESPONSE } from '../lib/subject.js';

/** The receipts table plus the business table every side writes one row to (`LEDGER_DDL`). */
export interface LedgerDatabase extends ReceiptsDatabase {
  bench_ledger: { event_id: string; amount: number };
}

/** The amount of every business row (a neutral placeholder). */
export const LEDGER_AMOUNT = 4200;

/** The PostgreSQL store every side's guard runs on: the same type on both sides of a target. */
export type BenchStore = PostgresStore<LedgerDatabase>;

/**
 * Connections of the pool that carries the transactions, on every side: a stack side's own pool (the guard's store
 * opens none on that path: its statements all join the stack's transaction), the store's pool on the `own` side.
 */
export const POOL_SIZE = 10;

/** What every side does inside its transaction, and the guard it does it with. */
export interface StackWork {
  readonly guard: IdempotencyGuard<BenchStore>;
  /** The pool config of the namespace (schema in `options`) with `max: POOL_SIZE`. */
  readonly pool: { readonly connectionString: string; readonly options: string; readonly max: number };
  /** The receipt key of event `id`. */
  key(id: string): RequestKey;
  /** The run options of event `id` (its payload, fingerprinted by the guard). */
  options(id: string): RunOptions;
  /**
   * The outbox row of event `id`, written in `payonceTx` (the transaction as payonce's Kysely `Transaction`), and
   * the handler's stored response; counts one handler run. Call it after the business INSERT.
   */
  finish(payonceTx: Transaction<LedgerDatabase>, id: string): Promise<typeof HANDLER_RESPONSE>;
}

/** An opened side: delivers one event per call until closed. */
export interface StackRunner {
  /** The one-commit path of event `id`, committed when it resolves. */
  deliver(id: string): Promise<Outcome>;
  close(): Promise<void>;
}

/**
 * One entry of the registry: a stack whose own transaction carries the one-commit path. `open` imports the stack's
 * driver and its `payonce/tx/<stack>` entry itself (through `payonce/…`, i.e. dist/), so a side's process loads only
 * its own stack.
 */
export interface StackSide {
  /** What the side runs, for the report, e.g. `node-postgres PoolClient, runInPgTransaction`. */
  readonly label: string;
  /** The database the side runs on (only PostgreSQL for now: the targets compare against PostgresStore). */
  readonly backend: 'postgres';
  open(ns: NamespaceInfo, work: StackWork): Promise<StackRunner>;
}

/**
 * The schema of `pool.options` (`-c search_path=<schema>`, `lib/namespaces.ts`), for a driver that takes it as a
 * connection parameter rather than as libpq `options` (postgres.js).
 * @throws {Error} `options` without a `search_path`.
 */
export function searchPathOf(pool: StackWork['pool']): string {
  const match = /search_path=(\S+)/.exec(pool.options);
  if (match === null) throw new Error(`no search_path in the pool options ${JSON.stringify(pool.options)}`);
  return match[1]!;
}

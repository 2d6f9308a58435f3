import type { Kysely, QueryResult } from 'kysely';
import type { RequestKey } from '../../core/request-key.js';
import { executeStatement, type StatementCache, type StatementDefinition } from './compiled-statement.js';
import type { ReceiptsDatabase } from './receipts-table.js';
import { withRetry } from './retry.js';
import type { SqlDialect } from './sql-dialect.js';

/** What every storage operation runs against: a Kysely executor (pool or caller's transaction) and its dialect. */
export interface SqlContext {
  readonly db: Kysely<ReceiptsDatabase>;
  readonly dialect: SqlDialect;
  /** True inside a caller's transaction: statements are never retried there (the caller owns the outcome). */
  readonly inTransaction: boolean;
  /** The store's `schema` (see `SqlStoreOptions.schema`): query-builder statements qualify their tables with it. */
  readonly schema: string | null;
  /** The store's `tablePrefix` (see `SqlStoreOptions.tablePrefix`): payonce's table names start with it. */
  readonly tablePrefix: string;
  /**
   * `payonce_receipts` as raw SQL names it: under `tablePrefix`, qualified with `schema` (`"payonce".payonce_receipts`)
   * when set.
   */
  readonly receiptsTable: string;
  /** The store's fixed statements, compiled once on the store's own Kysely instance (qualified with `schema`). */
  readonly statements: StatementCache;
  /**
   * Runs a fixed statement (SQL text, parameters) straight on the store's own connection or pool, returning the
   * result in Kysely's shape: stores that own their driver (`SqliteStore.open`, taking its turn with Kysely's queries
   * and transactions; `PostgresStore.connect` and `MysqlStore.connect`, with `pool.query`). `null` to run every
   * statement through `db.executeQuery` (a store on the application's own Kysely). Never used inside a caller's
   * transaction, nor by the multi-row batched statements.
   */
  readonly direct?: ((sql: string, parameters: readonly unknown[]) => Promise<QueryResult<unknown>>) | null;
}

/**
 * Runs ONE statement, retrying transient errors only outside a caller's transaction. Inside one it is `run()`
 * itself (no retry wrapper, one async frame less per statement); errors propagate unchanged either way.
 */
export function statement<T>(ctx: SqlContext, run: () => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return run();
  return withRetry(run, (error) => ctx.dialect.isTransientError(error), true, ctx.dialect.retryBudgetMs);
}

/** Runs ONE of the store's fixed statements with `values` in its slots (retried like `statement`). */
export function runStatement<N extends string, R>(
  ctx: SqlContext,
  definition: StatementDefinition<N, R>,
  values: Readonly<Record<N, unknown>>,
): Promise<QueryResult<R>> {
  if (ctx.inTransaction) return executeStatement(ctx.db, ctx.statements, definition, values);
  return statement(ctx, () => sendFixed(ctx.db, ctx.statements, ctx.direct ?? null, definition, values));
}

/**
 * Sends ONE fixed statement (compiled once in `statements`) as is, not retried: on `direct` (a store's own driver,
 * `SqlContext.direct`) when given, else through `db` (Kysely's executor, or the open transaction's connection).
 * Driver errors propagate unchanged.
 */
export function sendFixed<N extends string, R, DB>(
  db: Kysely<DB>,
  statements: StatementCache,
  direct: SqlContext['direct'],
  definition: StatementDefinition<N, R, DB>,
  values: Readonly<Record<N, unknown>>,
): Promise<QueryResult<R>> {
  if (!direct) return executeStatement(db, statements, definition, values);
  const template = statements.template(definition);
  return direct(template.sql, template.parametersOf(values)) as Promise<QueryResult<R>>;
}

/** A key part as bound to the key columns: UTF-8 bytes for binary (VARBINARY) columns, else the string. */
export function keyPart(ctx: SqlContext, part: string): string | Uint8Array {
  return ctx.dialect.binaryKeys ? Buffer.from(part, 'utf8') : part;
}

/** The primary-key values of `key` on this dialect. */
export function keyValues(
  ctx: SqlContext,
  key: RequestKey,
): { provider: string | Uint8Array; externalId: string | Uint8Array } {
  return { provider: keyPart(ctx, key.provider), externalId: keyPart(ctx, key.externalId) };
}

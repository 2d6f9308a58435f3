import type { QueryResult } from 'kysely';

/** The part of a `pg` pool the statement runner uses. */
export interface PgQueryPool {
  query(
    sql: string,
    parameters: unknown[],
  ): Promise<{ command: string; rowCount: number | null; rows: unknown[] | undefined }>;
}

/** Commands whose `rowCount` is a number of affected rows (as Kysely's PostgreSQL driver reports them). */
const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * Runs one of the store's fixed statements (SQL text already compiled by Kysely, fresh parameters) straight on
 * the `pg` pool with `pool.query`: one checkout, the statement, one release. The result has the shape Kysely's
 * PostgreSQL driver gives (`rows`, `numAffectedRows` as a bigint for INSERT/UPDATE/DELETE/MERGE), so the store's
 * code reads it the same either way; errors are the driver's, unchanged. Used only by stores that own their pool
 * (`PostgresStore.connect`) and never inside a caller's transaction: it skips the Kysely executor's layers, which
 * were a measurable part of the client's CPU per delivery (packages/bench/notes/batched.md).
 */
export function pgStatementRunner(pool: PgQueryPool) {
  return async (sql: string, parameters: readonly unknown[]): Promise<QueryResult<unknown>> => {
    // `parametersOf` built a fresh array for this run: pg may read it as its own.
    const { command, rowCount, rows } = await pool.query(sql, parameters as unknown[]);
    return {
      rows: rows ?? [],
      numAffectedRows: AFFECTING.has(command) ? BigInt(rowCount ?? 0) : undefined,
    };
  };
}

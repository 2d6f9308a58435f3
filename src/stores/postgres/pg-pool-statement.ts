import type { QueryResult } from 'kysely';

/** The part of a `pg` `Pool` a direct statement uses. */
export interface PgQueryPool {
  query(
    text: string,
    values: unknown[],
  ): Promise<{ command: string; rowCount: number | null; rows: Record<string, unknown>[] }>;
}

const COUNTED = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * Runs one of the store's fixed statements (outside any caller's transaction) with `pool.query`: one checkout, the
 * statement, the release, as Kysely's `PostgresDriver` does them, but without its executor's and connection
 * provider's promises (about twenty per statement; bench/notes/service.md). The answer is shaped as that driver
 * shapes it: `numAffectedRows` for INSERT/UPDATE/DELETE/MERGE, the rows. Driver errors propagate unchanged.
 */
export function pgPoolStatement(
  pool: PgQueryPool,
): (sql: string, parameters: readonly unknown[]) => Promise<QueryResult<unknown>> {
  return async (sql, parameters) => {
    const { command, rowCount, rows } = await pool.query(sql, parameters as unknown[]);
    return {
      numAffectedRows: COUNTED.has(command) && rowCount !== null ? BigInt(rowCount) : undefined,
      rows: rows ?? [],
    };
  };
}

import type { SqlExecutorResult } from '../stores/sql/joined-transaction.js';

/** Statements whose count is a count of changed rows (as in Kysely's own PostgreSQL driver). */
const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * A PostgreSQL driver's answer as the executor's result: `count` (node-postgres `rowCount`, postgres.js `count`)
 * becomes `numAffectedRows` only for INSERT / UPDATE / DELETE / MERGE (the statement's `command`), never for a
 * SELECT, whose count is the rows returned.
 */
export function postgresResult(rows: readonly unknown[], command: unknown, count: unknown): SqlExecutorResult {
  if (!WRITES.has(String(command)) || typeof count !== 'number') return { rows };
  return { rows, numAffectedRows: BigInt(count) };
}

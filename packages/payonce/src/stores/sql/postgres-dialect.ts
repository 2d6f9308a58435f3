import { type Kysely, sql } from 'kysely';
import { driverErrorCodes } from './driver-error.js';
import type { SqlDialect } from './sql-dialect.js';

/** SQLSTATEs a single autocommit statement may retry: 40P01 deadlock_detected, 40001 serialization_failure. */
const TRANSIENT = new Set(['40P01', '40001']);

/**
 * PostgreSQL (pg): `INSERT … ON CONFLICT DO NOTHING` (a raised 23505 would abort the caller's transaction),
 * varchar keys (deterministic collation: equal only when byte-identical). Under READ COMMITTED each statement
 * sees the latest commit, so no locking read is needed. Migrations live in `current_schema()`.
 */
export const postgresDialect: SqlDialect = Object.freeze({
  name: 'postgres',
  claimInsert: 'on-conflict-do-nothing',
  binaryKeys: false,
  migrationTransaction: null,
  lockingReadClause: null,
  isTransientError(error: unknown): boolean {
    return TRANSIENT.has(String(driverErrorCodes(error).code));
  },
  async migrationTableSchema(db: Kysely<unknown>): Promise<string | undefined> {
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
    const schema = rows[0]?.schema;
    if (!schema) throw new Error('PostgreSQL has no current schema: no schema on the search_path exists');
    return schema;
  },
});

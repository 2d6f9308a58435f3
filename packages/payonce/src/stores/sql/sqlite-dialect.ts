import { driverErrorCodes } from './driver-error.js';
import type { SqlDialect } from './sql-dialect.js';

/**
 * SQLite (better-sqlite3 12): `INSERT … ON CONFLICT DO NOTHING`, TEXT keys (BINARY collation: byte-exact),
 * `SQLITE_BUSY*` is transient. Transactions are serialised by the database lock, so no locking read is needed.
 */
export const sqliteDialect: SqlDialect = Object.freeze({
  name: 'sqlite',
  claimInsert: 'on-conflict-do-nothing',
  binaryKeys: false,
  migrationTransaction: 'begin immediate',
  lockingReadClause: null,
  isTransientError(error: unknown): boolean {
    const { code } = driverErrorCodes(error);
    return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
  },
  async migrationTableSchema(): Promise<string | undefined> {
    return undefined;
  },
});

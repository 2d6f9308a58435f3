import { driverErrorCodes } from './driver-error.js';
import type { SqlDialect } from './sql-dialect.js';

/** errno a single autocommit statement may retry: 1213 ER_LOCK_DEADLOCK, 1205 ER_LOCK_WAIT_TIMEOUT. */
const TRANSIENT = new Set([1213, 1205]);

/**
 * MySQL 8 / MariaDB 10.6+ (mysql2): plain INSERT whose errno 1062 means "already exists" (INSERT IGNORE would
 * also swallow truncation and other errors), VARBINARY keys (utf8mb4_bin is PAD SPACE: 'a ' = 'a'), and a
 * locking read after a lost claim inside a transaction (REPEATABLE READ snapshots may predate the winner).
 */
export const mysqlDialect: SqlDialect = Object.freeze({
  name: 'mysql',
  claimInsert: 'plain-insert',
  binaryKeys: true,
  migrationTransaction: null,
  lockingReadClause: 'lock in share mode',
  isTransientError(error: unknown): boolean {
    const { errno } = driverErrorCodes(error);
    return typeof errno === 'number' && TRANSIENT.has(errno);
  },
  async migrationTableSchema(): Promise<string | undefined> {
    return undefined;
  },
});

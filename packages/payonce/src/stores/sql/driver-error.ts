/** The `code` and `errno` a driver error carries (pg: `code` '23505'; mysql2: `errno` 1062; better-sqlite3: `code`). */
export function driverErrorCodes(error: unknown): { code: unknown; errno: unknown } {
  if (typeof error !== 'object' || error === null) return { code: undefined, errno: undefined };
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  return { code, errno };
}

const SQLITE_DUPLICATE = new Set(['SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_UNIQUE']);

/**
 * True when `error` is a unique/primary-key violation of any supported driver: PostgreSQL SQLSTATE 23505
 * (`unique_violation`), MySQL/MariaDB errno 1062 (`ER_DUP_ENTRY`), SQLite `SQLITE_CONSTRAINT_PRIMARYKEY` or
 * `SQLITE_CONSTRAINT_UNIQUE`. payonce treats it as "the receipt already exists", never as a failure.
 * @see docs/design.md §3 "Claim"; issue 2 "Duplicate-key errors of every driver".
 * @example if (isDuplicateKeyError(error)) return readExisting();
 */
export function isDuplicateKeyError(error: unknown): boolean {
  const { code, errno } = driverErrorCodes(error);
  return code === '23505' || errno === 1062 || code === 'ER_DUP_ENTRY' || SQLITE_DUPLICATE.has(String(code));
}

/** SQLSTATE classes that say the connection or server failed, not the statement's data. */
const CONNECTION_CLASSES = new Set(['08', '53', '57', '58', 'XX']);

/**
 * True when `error` is the server rejecting ONE statement for what it carried (a bad value, a constraint, a
 * duplicate) while the connection stays usable: a PostgreSQL SQLSTATE outside classes 08/53/57/58/XX, or a
 * MySQL/MariaDB server errno (below 2000) that mysql2 did not mark `fatal`. A batch that fails this way is split
 * into single-row statements so only the bad row fails; any other error (connection lost, terminated, timeout)
 * fails every caller of the batch. @see docs/design.md §3 "Batched claims and completions".
 */
export function isStatementError(error: unknown): boolean {
  const { code, errno } = driverErrorCodes(error);
  if ((error as { fatal?: unknown } | null)?.fatal === true) return false;
  if (typeof errno === 'number') return errno > 0 && errno < 2000;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !CONNECTION_CLASSES.has(code.slice(0, 2));
}

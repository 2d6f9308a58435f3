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

/** Node socket errors of a database connection that broke or never opened. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTCONN']);
/**
 * MySQL/MariaDB server errors that say the server, not the statement's data, stopped the work: 1040 too many
 * connections, 1053 server shutdown, 1205 lock wait timeout, 1213 deadlock (after payonce's retries), 1317 query
 * interrupted (`KILL QUERY`), 1969 statement time exceeded (MariaDB `max_statement_time`), 3024 (MySQL
 * `max_execution_time`), 2006/2013 server gone away / lost during query.
 */
const MYSQL_OUTAGE_ERRNOS = new Set([1040, 1053, 1205, 1213, 1317, 1969, 3024, 2006, 2013]);
/** Messages of node-postgres's own client-side failures, which carry no SQLSTATE. */
const PG_CLIENT_OUTAGE = /^(Query read timeout|Connection terminated|timeout exceeded when trying to connect)/;

/**
 * True when `error` (or an error in its `cause` chain) says the database could not do the work now — its
 * connection broke or timed out, the server cancelled or killed the statement, a lock wait or deadlock outlasted the
 * retries, the server is shutting down or out of connections — rather than that the statement's data was wrong:
 * PostgreSQL SQLSTATE classes 08, 40, 53, 57 and 58 (`57014` statement timeout or cancel, `40P01` deadlock, `55P03`
 * lock not available); node-postgres's `Query read timeout` and `Connection terminated…`; mysql2's `fatal` errors and
 * the errnos of `MYSQL_OUTAGE_ERRNOS`; `SQLITE_BUSY`; a socket error. An intake or route answers it 503 with
 * `Retry-After` (the delivery may succeed when retried), never 500.
 * @see docs/design.md §3 "Handler failure"; PostgreSQL Appendix A "Error codes"; MariaDB error codes.
 */
export function isStoreOutage(error: unknown): boolean {
  for (let current = error, depth = 0; current !== null && current !== undefined && depth < 5; depth++) {
    if (isOutageItself(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function isOutageItself(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno } = driverErrorCodes(error);
  if ((error as { fatal?: unknown }).fatal === true) return true;
  if (typeof errno === 'number' && MYSQL_OUTAGE_ERRNOS.has(errno)) return true;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || code === 'PROTOCOL_CONNECTION_LOST' || code.startsWith('SQLITE_BUSY')) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && (['08', '40', '53', '57', '58'].includes(code.slice(0, 2)) || code === '55P03')) {
      return true;
    }
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && PG_CLIENT_OUTAGE.test(message);
}

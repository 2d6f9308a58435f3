/** 1–64 printable ASCII characters, the first and the last not a space. */
const STORED_ID = /^[\x21-\x7e](?:[\x20-\x7e]{0,62}[\x21-\x7e])?$/;

/**
 * True when `value` can be an id as payonce stores them (orders, attempts, outbox jobs; payonce makes them with
 * `randomUUID`): 1–64 printable ASCII characters, not starting or ending with a space. The id columns are
 * `ascii_bin` on MySQL/MariaDB, where comparing them with other characters is an "Illegal mix of collations" error
 * and where, that collation padding with spaces, `'<id> '` would name the row `'<id>'` (PostgreSQL and SQLite would
 * not find it); PostgreSQL refuses a NUL in text. Anything else cannot name a stored row, so callers answer
 * "not found" without a query.
 */
export function isStoredId(value: unknown): value is string {
  return typeof value === 'string' && STORED_ID.test(value);
}

/**
 * True when `value` can be an id as payonce stores them (orders, attempts, outbox jobs): 1–64 printable ASCII
 * characters (the id columns are `ascii_bin` on MySQL/MariaDB, where comparing them with other characters is an
 * "Illegal mix of collations" error; PostgreSQL refuses a NUL in text). Anything else cannot name a stored row, so
 * callers answer "not found" without a query.
 */
export function isStoredId(value: unknown): value is string {
  return typeof value === 'string' && /^[\x20-\x7e]{1,64}$/.test(value);
}

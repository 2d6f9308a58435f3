/**
 * Which Prisma raw call runs one of payonce's statements: `$queryRawUnsafe` for a statement that answers rows,
 * `$executeRawUnsafe` (which answers a count of changed rows) for any other.
 */

/** A quoted literal or identifier, a comment, or one word of SQL text (captured). */
const QUOTED_COMMENT_OR_WORD =
  /'(?:[^'\\]|''|\\.)*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|--[^\n]*|\/\*[\s\S]*?\*\/|([A-Za-z_]+)/g;

/** First keywords of statements that answer rows on every dialect payonce supports. */
const ROW_STATEMENTS = new Set(['select', 'with', 'values', 'table', 'show', 'explain', 'pragma']);

/**
 * True when `sql` answers rows, so it must run through `$queryRawUnsafe`: it starts with SELECT (or WITH, VALUES,
 * TABLE, SHOW, EXPLAIN, PRAGMA), or it has a `RETURNING` clause (PostgreSQL, SQLite: payonce's
 * `INSERT … ON CONFLICT DO NOTHING RETURNING`, `UPDATE … RETURNING`). Words inside quoted literals, quoted
 * identifiers and comments are skipped, so a column or value spelled "returning" never counts. Any other statement
 * (an INSERT, UPDATE or DELETE without RETURNING) answers only the number of rows it changed, which payonce reads to
 * tell an insert from a duplicate: those run through `$executeRawUnsafe`.
 */
export function answersRows(sql: string): boolean {
  let first = true;
  for (const match of sql.matchAll(QUOTED_COMMENT_OR_WORD)) {
    const word = match[1]?.toLowerCase();
    if (word === undefined) continue;
    if (first && ROW_STATEMENTS.has(word)) return true;
    first = false;
    if (word === 'returning') return true;
  }
  return false;
}

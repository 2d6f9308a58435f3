import { type SQL, sql } from 'drizzle-orm';

/**
 * A `$n` placeholder of PostgreSQL SQL text, or a quoted literal / identifier (kept as written, so a `$1` inside
 * one is never taken for a placeholder).
 */
const POSTGRES_PLACEHOLDER = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)/g;

/**
 * A `?` placeholder of MySQL SQL text, or a quoted literal / identifier (MySQL strings also escape with a
 * backslash), kept as written so a `?` inside one stays text.
 */
const MYSQL_PLACEHOLDER = /'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|`(?:[^`]|``)*`|(\?)/g;

/**
 * `text` (payonce's SQL for `dialect`: `$n` placeholders on PostgreSQL, `?` on MySQL) with its placeholders as
 * Drizzle parameters (`sql.param`, so an array stays ONE value), which Drizzle numbers and binds itself.
 * @throws {Error} a placeholder without a parameter (a bug of the caller, never of a payonce statement).
 */
export function toDrizzleSql(text: string, parameters: readonly unknown[], dialect: 'postgres' | 'mysql'): SQL {
  const chunks: (SQL | ReturnType<typeof sql.param>)[] = [];
  let from = 0;
  let next = 0;
  for (const match of text.matchAll(dialect === 'postgres' ? POSTGRES_PLACEHOLDER : MYSQL_PLACEHOLDER)) {
    if (match[1] === undefined) continue;
    chunks.push(sql.raw(text.slice(from, match.index)));
    const position = dialect === 'postgres' ? Number(match[1]) - 1 : next++;
    if (position < 0 || position >= parameters.length) throw new Error(`placeholder ${match[0]} has no parameter`);
    chunks.push(sql.param(parameters[position]));
    from = match.index + match[0].length;
  }
  chunks.push(sql.raw(text.slice(from)));
  return sql.join(chunks);
}

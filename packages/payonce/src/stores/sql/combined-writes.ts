import { CompiledQuery, type QueryResult } from 'kysely';

/** A compiled statement's opening words that make it a plain write (Kysely's PostgreSQL compiler writes them so). */
const PLAIN_WRITE = /^(insert into|update|delete from) /;

/**
 * Whether `query` can be one part of {@link combineWrites}: an `insert`, `update` or `delete` as Kysely compiles it
 * for PostgreSQL, without a `with` of its own and without `returning` (the combined statement adds its own).
 */
export function isCombinableWrite(query: CompiledQuery): boolean {
  return PLAIN_WRITE.test(query.sql) && !/\breturning\b/.test(query.sql);
}

/**
 * `sql` with every parameter placeholder `$n` outside quoted identifiers and string literals renumbered `$(n +
 * offset)`. Kysely binds every value as a parameter, so the only `$n` in its SQL are placeholders; the scan still
 * skips `"…"` and `'…'` so an identifier can never be rewritten.
 */
export function shiftPlaceholders(sql: string, offset: number): string {
  let out = '';
  let quote: string | null = null;
  let i = 0;
  while (i < sql.length) {
    const char = sql[i]!;
    if (quote !== null) {
      out += char;
      if (char === quote) quote = null;
      i++;
    } else if (char === '"' || char === "'") {
      quote = char;
      out += char;
      i++;
    } else if (char === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      let j = i + 1;
      while (j < sql.length && /[0-9]/.test(sql[j]!)) j++;
      out += `$${Number(sql.slice(i + 1, j)) + offset}`;
      i = j;
    } else {
      out += char;
      i++;
    }
  }
  return out;
}

/**
 * ONE PostgreSQL statement that makes every write of `queries` (each {@link isCombinableWrite}) and answers how many
 * rows each touched: `with w0 as (<write 0> returning 1), w1 as (…) select (select count(*) from w0)::int as n0, …`.
 * PostgreSQL runs every data-modifying `with` part exactly once, to completion, all on ONE snapshot: none sees
 * another's rows, so the writes must be independent (different rows; no write reading what another writes). Their
 * constraints are checked as for one statement (a foreign key to a row another part inserts holds at its end), and
 * the statement fails whole when any part fails — as the transaction would have after the first failed write.
 * @see https://www.postgresql.org/docs/current/queries-with.html#QUERIES-WITH-MODIFYING
 */
export function combineWrites(queries: readonly CompiledQuery[]): CompiledQuery<Record<string, number>> {
  const parameters: unknown[] = [];
  let key = '';
  for (const query of queries) {
    key += `${query.parameters.length}\u0000${query.sql}\u0001`;
    parameters.push(...query.parameters);
  }
  let text = combinedTexts.get(key);
  if (text === undefined) {
    text = combinedText(queries);
    if (combinedTexts.size >= MAX_COMBINED_TEXTS) combinedTexts.clear();
    combinedTexts.set(key, text);
  }
  return CompiledQuery.raw(text, parameters) as CompiledQuery<Record<string, number>>;
}

/**
 * The texts {@link combineWrites} made, by their parts' texts and parameter counts: the money path combines the same
 * few shapes again and again, and renumbering their placeholders was a few per cent of the service's CPU.
 */
const combinedTexts = new Map<string, string>();

/** Most texts kept in `combinedTexts` (emptied when full). */
const MAX_COMBINED_TEXTS = 500;

/** The SQL of {@link combineWrites} for `queries`. */
function combinedText(queries: readonly CompiledQuery[]): string {
  const parts: string[] = [];
  const counts: string[] = [];
  let offset = 0;
  queries.forEach((query, i) => {
    parts.push(`w${i} as (${shiftPlaceholders(query.sql, offset)} returning 1)`);
    counts.push(`(select count(*) from w${i})::int as n${i}`);
    offset += query.parameters.length;
  });
  return `with ${parts.join(', ')} select ${counts.join(', ')}`;
}

/** The result of each part of a {@link combineWrites} statement: the rows it touched, as its own write reports them. */
export function splitCombined(result: QueryResult<Record<string, number>>, parts: number): QueryResult<never>[] {
  const row = result.rows[0];
  if (row === undefined) throw new Error('a combined write answered no row');
  return Array.from({ length: parts }, (_, i) => ({ rows: [], numAffectedRows: BigInt(row[`n${i}`] ?? 0) }));
}

import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { ServiceError } from '../service-error.js';

/** A keyset position: the sort time (epoch ms) then the tie-breaking id columns' values, newest first. */
export type CursorValues = readonly [number, ...string[]];

/** An opaque cursor (base64url of the JSON position) for the row after which the next page starts. */
export function encodeCursor(values: CursorValues): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/**
 * The position an opaque cursor names, checked to have `ids` string parts after the time.
 * @throws {ServiceError} `ADMIN_QUERY_INVALID` for anything this API did not issue.
 */
export function decodeCursor(cursor: string, ids: number): CursorValues {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new ServiceError('ADMIN_QUERY_INVALID', 'cursor is not one this API issued');
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.length === ids + 1 &&
    Number.isSafeInteger(parsed[0]) &&
    parsed.slice(1).every((part) => typeof part === 'string' && part.length <= 400 && /^[\x20-\x7e]*$/.test(part));
  if (!valid) throw new ServiceError('ADMIN_QUERY_INVALID', 'cursor is not one this API issued');
  return parsed as unknown as CursorValues;
}

/**
 * The keyset condition "strictly after `values`" for a descending order on `columns` (time column first):
 * `t < v0 or (t = v0 and (c1 < v1 or (c1 = v1 and …)))`.
 */
export function afterCursor(columns: readonly string[], values: CursorValues): Expression<SqlBool> {
  const build = (index: number): ReturnType<typeof sql<SqlBool>> => {
    const column = sql.ref(columns[index] ?? '');
    const value = values[index];
    if (index === columns.length - 1) return sql<SqlBool>`${column} < ${value}`;
    return sql<SqlBool>`(${column} < ${value} or (${column} = ${value} and ${build(index + 1)}))`;
  };
  return build(0);
}

/** One page of a list: the rows and the cursor of the next page (`null` on the last page). */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

/**
 * Cuts `rows` (fetched with `limit + 1`) to one page; the cursor names the last row kept.
 */
export function pageOf<R, T>(
  rows: readonly R[],
  limit: number,
  toItem: (row: R) => T,
  position: (row: R) => CursorValues,
): Page<T> {
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return {
    items: kept.map(toItem),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(position(last)) : null,
  };
}

/** Most rows one list page returns; more is `ADMIN_QUERY_INVALID`. */
export const MAX_PAGE = 200;

/** Rows of a list page when the query names no `limit`. */
const DEFAULT_PAGE = 50;

/** Paging input of every list: `limit` rows (1–200, default 50) after the opaque `cursor`. */
export interface PageQuery {
  readonly limit?: number;
  readonly cursor?: string;
}

/** The keyset position of `row`: its time column (epoch ms) as a number, its id columns as text. */
function positionOf(row: Readonly<Record<string, unknown>>, keys: readonly [string, ...string[]]): CursorValues {
  const [time, ...ids] = keys;
  const at = row[time];
  const idText = (value: unknown) =>
    value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : String(value ?? '');
  return [typeof at === 'bigint' ? Number(at) : Number(at ?? 0), ...ids.map((key) => idText(row[key]))];
}

/**
 * One page of a keyset-paged list, newest first: the rows of `query` strictly after `page.cursor`, ordered by
 * `keys` descending (the time column, epoch ms, then the id columns that break ties), at most `page.limit` of them
 * (default 50), each mapped by `toItem`, and the cursor of the next page (`null` on the last one). Every admin
 * list pages through this one helper.
 * @throws {ServiceError} `ADMIN_QUERY_INVALID` when `page.cursor` is not one this API issued for these keys.
 */
export async function keysetPage<DB, TB extends keyof DB, O extends Readonly<Record<string, unknown>>, T>(
  query: SelectQueryBuilder<DB, TB, O>,
  keys: readonly [string, ...string[]],
  page: PageQuery,
  toItem: (row: O) => T,
): Promise<Page<T>> {
  const limit = page.limit ?? DEFAULT_PAGE;
  let q = page.cursor ? query.where(afterCursor(keys, decodeCursor(page.cursor, keys.length - 1))) : query;
  for (const key of keys) q = q.orderBy(sql.ref(key), 'desc');
  const rows = await q.limit(limit + 1).execute();
  return pageOf(rows, limit, toItem, (row) => positionOf(row, keys));
}

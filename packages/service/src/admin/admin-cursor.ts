import { type Expression, type SqlBool, sql } from 'kysely';
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

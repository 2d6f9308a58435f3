import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** The part of a better-sqlite3 `Database` that Kysely's `SqliteDialect` calls. */
export interface PreparingDatabase {
  close(): void;
  prepare(sql: string): SqliteStatement;
}

/**
 * Wraps a better-sqlite3 connection so `prepare(sql)` returns the statement already prepared for the same SQL text,
 * keeping the `limit` most recently used ones. Kysely's SQLite driver calls `prepare` on every execution; a receipt
 * store runs a handful of fixed statements, so without a cache each delivery pays two SQLite compilations.
 * Safe because Kysely serialises every query on the one connection (a statement is never run while another
 * execution of it is still iterating).
 * @see packages/bench/notes/profiles.md (sqlite-normal profile).
 */
export function statementCache(database: PreparingDatabase, limit = 64): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      if (cached) {
        statements.delete(sql); // re-insert: Map order is the recency order
        statements.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > limit) statements.delete(statements.keys().next().value as string);
      return statement;
    },
  };
}

import { entityKind, is, type SQL } from 'drizzle-orm';
import { MySqlDatabase, MySqlTransaction } from 'drizzle-orm/mysql-core';
import { PgDatabase, type PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { BaseSQLiteDatabase, SQLiteTransaction } from 'drizzle-orm/sqlite-core';
import { InvalidOption } from '../core/errors.js';
import type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
import { toDrizzleSql } from './drizzle-sql.js';
import { pgTransactionOpen } from './pg-transaction-status.js';
import { postgresResult } from './postgres-result.js';

/**
 * A Drizzle transaction whose statements run asynchronously: the `tx` of `db.transaction(async (tx) => …)` on
 * node-postgres, postgres.js or mysql2 (its `execute` is what payonce uses).
 */
export interface DrizzleAsyncTransactionLike {
  /** Runs one Drizzle SQL statement on the transaction (Drizzle binds its parameters). */
  execute(query: SQL): PromiseLike<unknown>;
}

/** One prepared statement of better-sqlite3 (the part payonce uses). */
export interface BetterSqliteStatementLike {
  /** True when the statement returns rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean;
  /** Runs a statement that returns rows, with bound parameters. */
  all(...parameters: unknown[]): unknown[];
  /** Runs a statement that returns no rows; `changes` is the number of rows it changed. */
  run(...parameters: unknown[]): { readonly changes: number };
}

/** A better-sqlite3 `Database` (the `$client` of a Drizzle better-sqlite3 database). */
export interface BetterSqliteClientLike {
  /** True between `BEGIN` and `COMMIT` / `ROLLBACK` on this connection. */
  readonly inTransaction: boolean;
  /** Compiles one SQL statement (`?` placeholders). */
  prepare(source: string): BetterSqliteStatementLike;
}

/**
 * A Drizzle better-sqlite3 database (`drizzle(new Database(file))`) on which the application ran
 * `db.run(sql\`begin immediate\`)`: better-sqlite3's `db.transaction` is synchronous and cannot hold payonce's
 * asynchronous statements, so on that driver the open transaction is the database's one connection itself.
 */
export interface DrizzleBetterSqliteLike {
  /** The better-sqlite3 connection. */
  readonly $client: BetterSqliteClientLike;
  /** Runs one Drizzle SQL statement that returns no rows. */
  run(query: SQL): unknown;
}

/** What the Drizzle entry accepts: a `tx` of node-postgres, postgres.js or mysql2, or a better-sqlite3 `db` in BEGIN. */
export type DrizzleTransactionLike = DrizzleAsyncTransactionLike | DrizzleBetterSqliteLike;

const ACCEPTED =
  'must be the tx of a Drizzle db.transaction(async (tx) => …) on node-postgres, postgres.js or mysql2, or a ' +
  'Drizzle better-sqlite3 db after db.run(sql`begin immediate`)';

const SYNC_TRANSACTION =
  "is a Drizzle SQLite transaction: better-sqlite3's db.transaction runs synchronously, so payonce's asynchronous " +
  'statements would run after it ended, outside any transaction; run db.run(sql`begin immediate`) and pass db, ' +
  'or open it with drizzleTransactions(db)';

/** node-postgres answers `{ rows, rowCount, command }`; postgres.js a row array with `count` and `command`. */
function postgresResultOf(answer: unknown): SqlExecutorResult {
  const result = answer as { rows?: unknown[]; rowCount?: number | null; count?: number | null; command?: string };
  const rows = Array.isArray(answer) ? answer : (result.rows ?? []);
  return postgresResult(rows, result.command, Array.isArray(answer) ? result.count : result.rowCount);
}

/**
 * mysql2 answers `[rows, fields]` to a statement that returns rows and `[ResultSetHeader, undefined]` to a write.
 * @throws {InvalidOption} another shape (a MySQL driver of Drizzle other than mysql2).
 */
function mysqlResultOf(answer: unknown): SqlExecutorResult {
  const first: unknown = Array.isArray(answer) ? answer[0] : undefined;
  if (Array.isArray(first)) return { rows: first };
  const header = first as { affectedRows?: unknown; serverStatus?: unknown } | undefined;
  const affected = header?.affectedRows;
  const status = header?.serverStatus;
  // SERVER_STATUS_IN_TRANS (bit 0 of the OK packet's status flags): the server was inside a transaction.
  const inTransaction = typeof status === 'number' ? { inTransaction: (status & 1) !== 0 } : {};
  if (typeof affected === 'number') return { rows: [], numAffectedRows: BigInt(affected), ...inTransaction };
  throw new InvalidOption('tx', `answered tx.execute with an unknown shape; ${ACCEPTED}`);
}

/**
 * The driver's own error behind Drizzle's `DrizzleQueryError` (drizzle-orm 0.44+ wraps it, with the statement's
 * `query` and `params`, in `cause`): its `code` / `errno` is what payonce reads (MySQL's duplicate key, errno 1062).
 */
function driverErrorOf(error: unknown): unknown {
  const wrapped = error as { query?: unknown; params?: unknown; cause?: unknown } | null;
  return error instanceof Error &&
    typeof wrapped?.query === 'string' &&
    Array.isArray(wrapped.params) &&
    typeof wrapped.cause === 'object' &&
    wrapped.cause !== null
    ? wrapped.cause
    : error;
}

/**
 * The name given to `prepareQuery` for payonce's statements: on postgres.js (`PostgresJsSession`) a name only says
 * "prepare" (Drizzle passes `prepare: name !== undefined` to postgres.js's `unsafe`), so each statement is prepared
 * on the connection the first time it runs there and then sent in one round trip instead of two (see
 * `postgresJsExecutor`); a `postgres()` call with `prepare: false` still wins. On node-postgres a name would be a
 * server-side statement name, so none is given there (pg sends an unnamed statement in one round trip anyway).
 */
function statementNameFor(session: object): string | undefined {
  const kind = (session.constructor as { [entityKind]?: unknown } | undefined)?.[entityKind];
  return kind === 'PostgresJsSession' ? 'payonce' : undefined;
}

/**
 * An executor over a Drizzle PostgreSQL transaction (node-postgres or postgres.js): payonce's compiled text and
 * parameters are prepared straight on the transaction's own Drizzle session (`tx._.session.prepareQuery`, what
 * `tx.execute(sql)` runs once Drizzle has built its query), with no rebuild of the text into a Drizzle `SQL` object
 * and back, which cost about 80 µs of CPU per statement (packages/bench/notes/stack.md); on postgres.js prepared on
 * the connection ({@link statementNameFor}).
 */
function postgresExecutor(tx: PgTransaction<PgQueryResultHKT>): SqlExecutor {
  const session = tx._.session;
  const name = statementNameFor(session);
  // node-postgres' session holds the pg client, which reports the server's transaction status; postgres.js' does not.
  const client = (session as unknown as { client?: unknown }).client;
  return {
    dialect: 'postgres',
    isOpen: pgTransactionOpen(client),
    ...(typeof client === 'object' && client !== null ? { origin: client } : {}),
    async execute(text, parameters) {
      let answer: unknown;
      try {
        answer = await session.prepareQuery({ sql: text, params: [...parameters] }, undefined, name, false).execute();
      } catch (error) {
        throw driverErrorOf(error);
      }
      return postgresResultOf(answer);
    },
  };
}

/** An executor over `tx.execute` of a Drizzle MySQL transaction (mysql2), payonce's `?` bound by Drizzle. */
function mysqlExecutor(tx: DrizzleAsyncTransactionLike): SqlExecutor {
  return {
    dialect: 'mysql',
    async execute(text, parameters) {
      let answer: unknown;
      try {
        answer = await tx.execute(toDrizzleSql(text, parameters, 'mysql'));
      } catch (error) {
        throw driverErrorOf(error);
      }
      return mysqlResultOf(answer);
    },
  };
}

/** The better-sqlite3 connection of a Drizzle SQLite database, or `undefined` for another SQLite driver. */
export function betterSqliteClientOf(db: unknown): BetterSqliteClientLike | undefined {
  const client = (db as { $client?: Partial<BetterSqliteClientLike> } | null)?.$client;
  return typeof client?.prepare === 'function' && typeof client.inTransaction === 'boolean'
    ? (client as BetterSqliteClientLike)
    : undefined;
}

/** An executor over the better-sqlite3 connection of a Drizzle database, in the transaction the caller began. */
function betterSqliteExecutor(client: BetterSqliteClientLike): SqlExecutor {
  return {
    dialect: 'sqlite',
    // The connection's transaction is checked before every statement: its file is checked once per connection.
    isOpen: () => client.inTransaction,
    origin: client,
    async execute(text, parameters) {
      if (!client.inTransaction) {
        throw new InvalidOption('tx', `is a Drizzle better-sqlite3 database whose transaction has ended; ${ACCEPTED}`);
      }
      const statement = client.prepare(text);
      if (statement.reader) return { rows: statement.all(...parameters) };
      return { rows: [], numAffectedRows: BigInt(statement.run(...parameters).changes) };
    },
  };
}

/**
 * The executor seam over `tx`: a Drizzle transaction of node-postgres or postgres.js (dialect `postgres`) or mysql2
 * (`mysql`), whose statements run on the transaction's Drizzle session with payonce's placeholders bound by the driver; or a Drizzle
 * better-sqlite3 database inside `begin immediate` (`sqlite`), whose statements run on its connection. The dialect
 * is the class of `tx`. Driver errors reach the caller as the driver's own (unwrapped from `DrizzleQueryError`).
 * @throws {InvalidOption} `tx` is a Drizzle PostgreSQL or MySQL database (not its `tx`), a synchronous better-sqlite3
 * transaction, a better-sqlite3 database with no open transaction, or anything else.
 */
export function drizzleExecutor(tx: DrizzleTransactionLike): SqlExecutor {
  if (is(tx, PgTransaction)) return postgresExecutor(tx as PgTransaction<PgQueryResultHKT>);
  if (is(tx, MySqlTransaction)) return mysqlExecutor(tx);
  if (is(tx, SQLiteTransaction)) throw new InvalidOption('tx', SYNC_TRANSACTION);
  if (is(tx, BaseSQLiteDatabase)) {
    const client = betterSqliteClientOf(tx);
    if (client === undefined)
      throw new InvalidOption('tx', `is a Drizzle SQLite database of another driver; ${ACCEPTED}`);
    if (!client.inTransaction) {
      throw new InvalidOption('tx', `is a Drizzle better-sqlite3 database with no open transaction; ${ACCEPTED}`);
    }
    return betterSqliteExecutor(client);
  }
  const what = is(tx, PgDatabase) || is(tx, MySqlDatabase) ? 'a Drizzle database, not a transaction; ' : '';
  throw new InvalidOption('tx', what === '' ? ACCEPTED : `is ${what}${ACCEPTED}`);
}

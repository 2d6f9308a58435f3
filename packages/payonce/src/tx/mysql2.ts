/**
 * `payonce/tx/mysql2`: payonce's one-commit mode in a mysql2 transaction the application opened itself (a
 * `mysql2/promise` `PoolConnection` or `Connection` after `beginTransaction()`), on MySQL or MariaDB. Its own entry so
 * that only an application that joins its own mysql2 transactions loads it; mysql2 itself is never imported.
 * @see docs/your-stack.md "mysql2".
 */
import { InvalidOption } from '../core/errors.js';
import type { RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { TransactionOf } from '../core/store.js';
import type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { type ConnectionLease, inLeasedTransaction } from './leased-transaction.js';
import { type JoinableStore, type JoinedHandler, runJoined, withJoined } from './run-joined.js';

export type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
export type { StackTransactions } from '../stores/sql/stack-transactions.js';
export type { JoinableStore, JoinedHandler } from './run-joined.js';

/** The options form of mysql2's `query` that payonce uses. */
export interface Mysql2QueryOptions {
  /** The statement, with `?` placeholders. */
  readonly sql: string;
  /** The values bound to the placeholders, in order. */
  readonly values: unknown[];
  /** `false`: rows as objects keyed by column name, whatever the connection's own `rowsAsArray` says. */
  readonly rowsAsArray: false;
}

/** A `mysql2/promise` `PoolConnection` or `Connection` (the connection the application ran `beginTransaction()` on). */
export interface Mysql2TransactionConnection {
  /** Runs one statement; resolves to `[rows, fields]` (a `ResultSetHeader` instead of rows for a write). */
  query(options: Mysql2QueryOptions): Promise<[unknown, unknown]>;
}

/** The part of a mysql2 `ResultSetHeader` (the answer to a write) that payonce reads. */
interface ResultSetHeaderLike {
  readonly affectedRows: number | string | bigint;
  readonly insertId?: number | string | bigint | null;
}

function isResultSetHeader(value: unknown): value is ResultSetHeaderLike {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'affectedRows' in value;
}

/**
 * What one mysql2 answer gives payonce: the rows of a SELECT; for a write (a `ResultSetHeader`) no rows, its
 * `affectedRows` as `numAffectedRows` and a non-zero `insertId` as `insertId` (the shape Kysely's MySQL driver gives).
 */
export function mysql2ResultOf(answer: unknown): SqlExecutorResult {
  if (Array.isArray(answer)) return { rows: answer };
  if (!isResultSetHeader(answer)) return { rows: [] };
  const insertId = answer.insertId;
  const numAffectedRows = BigInt(answer.affectedRows);
  const status = (answer as { serverStatus?: unknown }).serverStatus;
  // SERVER_STATUS_IN_TRANS (bit 0 of the OK packet's status flags): the server was inside a transaction.
  const inTransaction = typeof status === 'number' ? { inTransaction: (status & 1) !== 0 } : {};
  return insertId === undefined || insertId === null || BigInt(insertId) === 0n
    ? { rows: [], numAffectedRows, ...inTransaction }
    : { rows: [], numAffectedRows, insertId: BigInt(insertId), ...inTransaction };
}

const ACCEPTED =
  'must be the mysql2/promise PoolConnection (await pool.getConnection()) or Connection the transaction was begun on (beginTransaction()), not a Pool';

/**
 * The executor seam over `connection`, a `mysql2/promise` `PoolConnection` or `Connection` inside
 * `beginTransaction()` … `commit()`: payonce's statements (MySQL dialect, `?` placeholders) run on it with
 * `connection.query({ sql, values, rowsAsArray: false })`, the text protocol with client-side escaping that Kysely's
 * MySQL driver uses too. Refused: a `Pool` (it has `getConnection`: each of its queries may take another connection,
 * outside the transaction), and a connection of mysql2's callback API (it has `promise()`; its `query` answers
 * through a callback, not a promise: pass `connection.promise()`, or open it from `mysql2/promise`).
 * @throws {InvalidOption} `connection` is a pool, a callback-API connection, or not an object with a `query` method.
 * @see mysql2 documentation "Promise Wrapper" and "Using connection pools".
 */
export function mysql2Executor(connection: Mysql2TransactionConnection): SqlExecutor {
  const candidate = connection as Partial<Mysql2TransactionConnection> & { getConnection?: unknown; promise?: unknown };
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.query !== 'function') {
    throw new InvalidOption('connection', ACCEPTED);
  }
  if (typeof candidate.getConnection === 'function') throw new InvalidOption('connection', ACCEPTED);
  if (typeof candidate.promise === 'function') {
    throw new InvalidOption(
      'connection',
      'must be a connection of mysql2/promise: this one is of the callback API (pass connection.promise(), or import mysql from "mysql2/promise")',
    );
  }
  return {
    dialect: 'mysql',
    async execute(sql, parameters) {
      const [answer] = await connection.query({ sql, values: [...parameters], rowsAsArray: false });
      return mysql2ResultOf(answer);
    },
  };
}

/**
 * Runs `work` with `trx`, the application's open mysql2 transaction on `connection` as a Kysely `Transaction` typed
 * for `store`'s tables, for payonce's one-commit calls that take one (`outbox.enqueueOnce(trx, …)`, the payments'
 * transitions). `store` is the payonce `MysqlStore` on the same database.
 * @throws {InvalidOption} `connection` is not accepted (see `mysql2Executor`), or `store` is not a MySQL store.
 * @throws whatever `work` throws.
 * @example
 * await connection.beginTransaction();
 * await withMysql2Transaction(store, connection, (trx) => outbox.enqueueOnce(trx, 'order.fulfil', `order:${id}`, { id }));
 * await connection.commit();
 */
export async function withMysql2Transaction<S extends JoinableStore, T>(
  store: S,
  connection: Mysql2TransactionConnection,
  work: (trx: TransactionOf<S>) => Promise<T>,
): Promise<T> {
  return await withJoined(store, mysql2Executor(connection), work);
}

/**
 * `guard.runInTransaction` in the application's own mysql2 transaction on `connection` (after
 * `beginTransaction()`): the receipt, `handler`'s writes on `connection` and any outbox row enqueued with its third
 * argument commit together when the application commits, or not at all. `handler` gets `connection` itself. A
 * duplicate inside a transaction never waits for an in-flight claim (see `runJoined`): it replays, or gets
 * `RequestInProgress` (HTTP 409).
 * @throws {InvalidOption} `connection` is not accepted (see `mysql2Executor`), or the guard's store is not MySQL.
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws (then `rollback()`).
 * @see docs/your-stack.md "mysql2".
 * @example
 * await connection.beginTransaction();
 * await runInMysql2Transaction(guard, connection, new RequestKey('stripe', event.id), async (connection) => {
 *   await connection.query('update orders set paid = 1 where id = ?', [orderId]);
 * });
 * await connection.commit();
 */
export async function runInMysql2Transaction<S extends JoinableStore, C extends Mysql2TransactionConnection>(
  guard: IdempotencyGuard<S>,
  connection: C,
  key: RequestKey,
  handler: JoinedHandler<C, TransactionOf<S>>,
  options: RunOptions = {},
): Promise<Outcome> {
  return await runJoined(guard, mysql2Executor(connection), connection, key, handler, options);
}

/** A connection lent by a `mysql2/promise` pool: a {@link Mysql2TransactionConnection} with its transaction calls. */
export interface Mysql2PooledConnection extends Mysql2TransactionConnection {
  /** `START TRANSACTION` on this connection. */
  beginTransaction(): Promise<void>;
  /** `COMMIT`. */
  commit(): Promise<void>;
  /** `ROLLBACK`. */
  rollback(): Promise<void>;
  /** Gives the connection back to its pool. */
  release(): void;
  /** Closes the connection at once; the pool never lends it again. */
  destroy(): void;
}

/** A `mysql2/promise` pool (the part payonce uses): it lends one connection per transaction. */
export interface Mysql2PoolLike<C extends Mysql2PooledConnection> {
  /** Lends one connection of the pool. */
  getConnection(): Promise<C>;
}

/**
 * Transactions of a `mysql2/promise` pool for the parts of payonce that open one themselves (a one-commit webhook
 * endpoint, an Idempotency-Key route): each takes one connection with `getConnection()`, runs `beginTransaction()`,
 * the work, then `commit()`, or `rollback()` and rethrows when the work (or the commit) throws; the connection is
 * released, or destroyed when its `rollback()` fails (never lent again in an unknown state).
 * @throws {InvalidOption} `pool` has no `getConnection`, or is a pool of mysql2's callback API (pass `pool.promise()`).
 * @example createWebhookIntake({ guard, endpoints: { stripe: { transaction: mysql2Transactions(pool), … } } })
 */
export function mysql2Transactions<C extends Mysql2PooledConnection>(pool: Mysql2PoolLike<C>): StackTransactions<C> {
  const candidate = pool as Partial<Mysql2PoolLike<C>> & { promise?: unknown };
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.getConnection !== 'function') {
    throw new InvalidOption('pool', 'must be a mysql2/promise Pool (mysql.createPool(…) from "mysql2/promise")');
  }
  if (typeof candidate.promise === 'function') {
    throw new InvalidOption(
      'pool',
      'must be a pool of mysql2/promise: this one is of the callback API (pass pool.promise())',
    );
  }
  const lease = mysql2Lease(pool);
  return {
    dialect: 'mysql',
    stack: 'mysql2',
    transaction: (work) => inLeasedTransaction(lease, (connection) => work(connection, mysql2Executor(connection))),
  };
}

/** mysql2's lease: `getConnection()`, its transaction calls, `release()`, or `destroy()` for a broken connection. */
function mysql2Lease<C extends Mysql2PooledConnection>(pool: Mysql2PoolLike<C>): ConnectionLease<C> {
  return {
    lend: () => pool.getConnection(),
    begin: (connection) => connection.beginTransaction(),
    commit: (connection) => connection.commit(),
    rollback: (connection) => connection.rollback(),
    giveBack(connection, broken) {
      if (broken === undefined) connection.release();
      else connection.destroy();
    },
  };
}

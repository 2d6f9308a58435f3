/**
 * `payonce/tx/pg`: payonce's one-commit mode in a node-postgres transaction the application opened itself (a
 * `PoolClient` or `Client` after `BEGIN`). Its own entry (not `payonce/postgres`, which is the store) so that only
 * an application that joins its own transactions loads it.
 * @see docs/your-stack.md "node-postgres".
 */
import { InvalidOption } from '../core/errors.js';
import type { RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { TransactionOf } from '../core/store.js';
import type { SqlExecutor } from '../stores/sql/joined-transaction.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { type ConnectionLease, inLeasedTransaction } from './leased-transaction.js';
import { holdClientErrors } from './pg-client-errors.js';
import { pgTransactionOpen } from './pg-transaction-status.js';
import { postgresResult } from './postgres-result.js';
import { type JoinableStore, type JoinedHandler, runJoined, withJoined } from './run-joined.js';

export type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
export type { StackTransactions } from '../stores/sql/stack-transactions.js';
export type { JoinableStore, JoinedHandler } from './run-joined.js';

/** What node-postgres answers to one query (the part payonce reads). */
export interface PgQueryResultLike {
  /** The result rows, one object per row keyed by column name. */
  readonly rows: unknown[];
  /** Rows the statement returned or changed; `null` where the server reports none. */
  readonly rowCount: number | null;
  /** The statement's command tag: `INSERT`, `UPDATE`, `SELECT`, … */
  readonly command: string;
}

/** A node-postgres `PoolClient` or `Client` (the connection the application ran `BEGIN` on). */
export interface PgTransactionClient {
  /** Runs one statement with bound values (`$1`, `$2`, …) on this connection. */
  query(config: { text: string; values: unknown[] }): Promise<PgQueryResultLike>;
}

const ACCEPTED =
  'must be the node-postgres PoolClient (pool.connect()) or Client the transaction was begun on (BEGIN), not a Pool';

/**
 * The executor seam over `client`, a node-postgres `PoolClient` or `Client` inside `BEGIN … COMMIT`: payonce's
 * statements run on it with `client.query({ text, values })`. A `Pool` is refused: each of its queries may take
 * another connection, outside the transaction.
 * @throws {InvalidOption} `client` is a `Pool`, or not an object with a `query` method.
 */
export function pgExecutor(client: PgTransactionClient): SqlExecutor {
  const candidate = client as Partial<PgTransactionClient> & { idleCount?: unknown; totalCount?: unknown };
  if (typeof candidate === 'function' && typeof (candidate as { unsafe?: unknown }).unsafe === 'function') {
    throw new InvalidOption('tx', 'is a postgres.js sql or transaction: use payonce/tx/postgres-js for it');
  }
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.query !== 'function') {
    throw new InvalidOption('tx', ACCEPTED);
  }
  if (typeof candidate.idleCount === 'number' && typeof candidate.totalCount === 'number') {
    throw new InvalidOption('tx', ACCEPTED);
  }
  return {
    dialect: 'postgres',
    // The server's transaction status on the connection (pg ≥ 8.16): its database is then checked once.
    isOpen: pgTransactionOpen(client),
    origin: client,
    async execute(sql, parameters) {
      const result = await client.query({ text: sql, values: [...parameters] });
      return postgresResult(result.rows, result.command, result.rowCount);
    },
  };
}

/**
 * Runs `work` with `trx`, the application's open node-postgres transaction on `client` as a Kysely `Transaction`
 * typed for `store`'s tables, for payonce's one-commit calls that take one (`outbox.enqueueOnce(trx, …)`, the
 * payments' transitions). `store` is the payonce store on the same database.
 * @throws {InvalidOption} `client` is not a `PoolClient`/`Client` (see `pgExecutor`), or `store` is not PostgreSQL.
 * @throws whatever `work` throws.
 * @example
 * await client.query('BEGIN');
 * await withPgTransaction(store, client, (trx) => outbox.enqueueOnce(trx, 'order.fulfil', `order:${id}`, { id }));
 * await client.query('COMMIT');
 */
export async function withPgTransaction<S extends JoinableStore, T>(
  store: S,
  client: PgTransactionClient,
  work: (trx: TransactionOf<S>) => Promise<T>,
): Promise<T> {
  return await withJoined(store, pgExecutor(client), work);
}

/**
 * `guard.runInTransaction` in the application's own node-postgres transaction on `client` (after `BEGIN`): the
 * receipt, `handler`'s writes on `client` and any outbox row enqueued with its third argument commit together when
 * the application commits, or not at all. `handler` gets `client` itself. A duplicate inside a transaction never
 * waits for an in-flight claim (see `runJoined`): it replays, or gets `RequestInProgress` (HTTP 409).
 * @throws {InvalidOption} `client` is not a `PoolClient`/`Client`, or the guard's store is not a PostgreSQL store.
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws (then run `ROLLBACK`).
 * @see docs/your-stack.md "node-postgres".
 * @example
 * await client.query('BEGIN');
 * await runInPgTransaction(guard, client, new RequestKey('stripe', event.id), async (client) => {
 *   await client.query('UPDATE orders SET paid = true WHERE id = $1', [orderId]);
 * });
 * await client.query('COMMIT');
 */
export async function runInPgTransaction<S extends JoinableStore, C extends PgTransactionClient>(
  guard: IdempotencyGuard<S>,
  client: C,
  key: RequestKey,
  handler: JoinedHandler<C, TransactionOf<S>>,
  options: RunOptions = {},
): Promise<Outcome> {
  return await runJoined(guard, pgExecutor(client), client, key, handler, options);
}

/** A node-postgres `Pool` (the part payonce uses): it lends one client per transaction. */
export interface PgPoolLike<C extends PgPooledClient> {
  /** Lends one client of the pool. */
  connect(): Promise<C>;
}

/** A client lent by a node-postgres `Pool`: a {@link PgTransactionClient} that goes back with `release`. */
export interface PgPooledClient extends PgTransactionClient {
  /** Gives the client back; with an error, the pool destroys it instead of lending it again. */
  release(error?: Error | boolean): void;
  /** Listens for the client's `error` event (a connection the server ended while the client was lent). */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  /** Stops listening for `error`. */
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Transactions of a node-postgres `Pool` for the parts of payonce that open one themselves (a one-commit webhook
 * endpoint, an Idempotency-Key route): each is `BEGIN … COMMIT` on one client lent by `pool`, rolled back when the
 * work throws; a client whose `ROLLBACK` fails is destroyed, never lent again. While a client is lent, its `error`
 * event (the server ended the connection: a failover, `pg_terminate_backend`) is listened for, so it fails the
 * transaction (the statement in flight rejects, the client is destroyed) instead of crashing the process, which a
 * lent node-postgres client with no listener does.
 * @throws {InvalidOption} `pool` has no `connect` method.
 * @example createWebhookIntake({ guard, endpoints: { stripe: { transaction: pgTransactions(pool), … } } })
 */
export function pgTransactions<C extends PgPooledClient>(pool: PgPoolLike<C>): StackTransactions<C> {
  if (typeof pool !== 'object' || pool === null || typeof pool.connect !== 'function') {
    throw new InvalidOption('pool', 'must be a node-postgres Pool (new pg.Pool(…))');
  }
  const lease = pgLease(pool);
  return {
    dialect: 'postgres',
    stack: 'node-postgres',
    transaction: (work) => inLeasedTransaction(lease, (client) => work(client, pgExecutor(client))),
  };
}

/** One statement without values on `client`, its answer dropped. */
async function run(client: PgTransactionClient, text: string): Promise<void> {
  await client.query({ text, values: [] });
}

/**
 * node-postgres's lease: `pool.connect()`, `BEGIN` / `COMMIT` / `ROLLBACK` as statements, `release(error)` (which
 * destroys the client when given an error), and the client's `error` event listened for while it is lent.
 */
function pgLease<C extends PgPooledClient>(pool: PgPoolLike<C>): ConnectionLease<C> {
  return {
    lend: () => pool.connect(),
    begin: (client) => run(client, 'BEGIN'),
    commit: (client) => run(client, 'COMMIT'),
    rollback: (client) => run(client, 'ROLLBACK'),
    giveBack(client, broken) {
      // A destroyed client's socket may still report its end (ECONNRESET) after the watcher is gone.
      if (broken !== undefined) holdClientErrors(client);
      client.release(broken);
    },
    watch(client, broken) {
      client.on?.('error', broken);
      return () => client.off?.('error', broken);
    },
  };
}

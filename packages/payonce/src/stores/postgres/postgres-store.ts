import { Kysely, PostgresDialect } from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import { importPeer } from '../../core/import-peer.js';
import type { RequestKey } from '../../core/request-key.js';
import type { ReceiptWatch } from '../../core/store.js';
import { resolveBatching, withPoolSize } from '../sql/batch-options.js';
import { endOnce } from '../sql/end-once.js';
import { RECEIPT_FINISHED_CHANNEL } from '../sql/migrations/0009-receipts-finish-notify.js';
import { postgresDialect } from '../sql/postgres-dialect.js';
import type { ReceiptsDatabase } from '../sql/receipts-table.js';
import { type SqlConnectOptions, SqlStore, type SqlStoreOptions } from '../sql/sql-store.js';
import { checkSchema } from '../sql/table-namespace.js';
import { checkTablePrefix, prefixedName } from '../sql/table-prefix.js';
import { discardWhenTimedOut } from './discard-timed-out.js';
import { PgFinishListener, type PgListenClient } from './pg-finish-listener.js';
import { type PgQueryPool, pgStatementRunner } from './pg-statement-runner.js';
import { type PreparingClient, prepareStatementsOn } from './prepared-statements.js';

/**
 * The part of a `pg` `PoolConfig` payonce documents; any other `pg` pool option is passed through unchanged.
 * `options: '-c search_path=my_schema'` changes the schema of unqualified names for the whole pool; payonce's own
 * `schema` option (`SqlStoreOptions.schema`) qualifies its tables instead, also in your transactions.
 */
export interface PostgresPoolConfig {
  connectionString?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  /** Maximum pool size. @default 10 (pg) */
  max?: number;
  /** Server options sent at connect, e.g. `-c search_path=payonce`. */
  options?: string;
  [option: string]: unknown;
}

/** Options of `PostgresStore.connect`. */
export interface PostgresConnectOptions extends SqlConnectOptions {
  /**
   * Send every statement with parameters as a named prepared statement, prepared once per connection of the pool
   * (at most `MAX_PREPARED_TEXTS` distinct texts a pool; later ones unnamed): PostgreSQL then skips most of its
   * parsing and planning, about a third of its CPU on payonce's webhook path (packages/bench/notes/path.md §9). Off
   * by default: a pooler in transaction mode (PgBouncer before 1.21, or without `max_prepared_statements`) hands a
   * connection's prepared statements to other clients and refuses them; and a table changed under a prepared
   * statement (a migration adding a column while the pool runs) fails that statement once on each connection that
   * prepared it ("cached plan must not change result type"), after which its text runs unprepared there.
   * @default false
   */
  readonly preparedStatements?: boolean;
}

/** Options of `new PostgresStore(…)`. */
export interface PostgresStoreOptions<DB> extends SqlStoreOptions<DB> {
  /**
   * Where the store's one `LISTEN` connection goes (a `postgres://` URL or pool config of the same database and
   * schema), so duplicates waiting for an in-flight claim are notified (`waitForInFlightMs`). Not from the pool:
   * a LISTEN connection is held for the store's life. @default none (waiters poll `find` with back-off)
   */
  readonly listenConnection?: string | PostgresPoolConfig;
}

/**
 * Receipts in PostgreSQL through Kysely and `pg` (an optional peer dependency). A claim is one
 * `INSERT … ON CONFLICT DO NOTHING` on the primary key (never a raised 23505, which would abort the caller's
 * transaction); takeover, complete and fail are compare-and-set UPDATEs. Create the table with
 * `store.migrate()`, `payonce migrate` or `schema('postgres')`.
 *
 * `new PostgresStore({ db })` uses the application's `Kysely` (with a `PostgresDialect`) and leaves it open
 * on `close()`; `PostgresStore.connect(url)` creates and owns a pool. In `runInTransaction` use the default
 * READ COMMITTED isolation: two transactions with one key serialise on the primary key and the second replays
 * the first's committed response (under REPEATABLE READ the second fails with 40001 instead).
 * @see docs/design.md §2–3; issue 2 "PostgresStore".
 * @example
 * const store = await PostgresStore.connect(process.env.DATABASE_URL!);
 * await db.transaction().execute((tx) => guard.runInTransaction(tx, key, (tx) => markPaid(tx, order)));
 */
export class PostgresStore<DB = ReceiptsDatabase> extends SqlStore<DB> {
  /**
   * Subscribes to the finish of `key` (issue #15): resolves once this store's one `LISTEN` connection is active
   * (opened on the first wait); the trigger of migration 0009 wakes the waiter when the receipt is completed or
   * failed and that transaction commits. Present only when the store has a listening connection: made by
   * `connect()`, or with `listenConnection` in the constructor. @throws the driver's error if LISTEN fails.
   * @see `Store.watchReceipt`.
   */
  readonly watchReceipt?: (key: RequestKey) => Promise<ReceiptWatch>;
  private listener: PgFinishListener | null = null;

  /**
   * Wraps the caller's Kysely instance (any database type, `PostgresDialect`); nothing of it is opened or owned.
   * With `listenConnection`, the store opens (and `close()` ends) one extra connection for `LISTEN`, so waiting
   * duplicates are notified; without it they poll.
   */
  constructor(options: PostgresStoreOptions<DB>) {
    super(options.db, postgresDialect, options.batching, options.schema, options.tablePrefix);
    const listen = options.listenConnection;
    if (listen !== undefined) {
      const config = typeof listen === 'string' ? { connectionString: checkUrl(listen) } : { ...listen };
      this.listener = new PgFinishListener(
        async () => {
          const { default: pg } = await importPeer('pg', 'PostgresStore listenConnection', () => import('pg'));
          return new pg.Client(config) as unknown as PgListenClient;
        },
        prefixedName(this.tablePrefix, RECEIPT_FINISHED_CHANNEL),
      );
      const listener = this.listener;
      this.watchReceipt = (key) => listener.watch(key.provider, key.externalId);
    }
  }

  /** Ends the listening connection (if any), then what `connect` created. Safe to call twice. */
  override close(): Promise<void> {
    const listener = this.listener;
    this.listener = null;
    return (listener ? listener.close() : Promise.resolve()).then(() => super.close());
  }

  /**
   * Creates a `pg` pool from a `postgres://` / `postgresql://` URL or a pool config, and returns a store that
   * owns it (`close()` ends the pool). Connections are opened lazily, on the first statement.
   * @throws {InvalidOption} for an empty URL or one that is not `postgres://` / `postgresql://`.
   * `options.batching` batches concurrent claims and completions (`SqlStoreOptions.batching`); its
   * `maxConcurrentBatches` defaults to this pool's size.
   * @throws {InvalidOption} for an invalid `options.batching`, or a `preparedStatements` that is not a boolean.
   * @throws {MissingPeer} `pg` is not installed (the message gives the `npm install` line).
   */
  static async connect<DB = ReceiptsDatabase>(
    urlOrConfig: string | PostgresPoolConfig,
    options: PostgresConnectOptions = {},
  ): Promise<PostgresStore<DB>> {
    const prepared = options.preparedStatements ?? false;
    if (typeof prepared !== 'boolean') throw new InvalidOption('preparedStatements', 'must be a boolean');
    const config = typeof urlOrConfig === 'string' ? { connectionString: checkUrl(urlOrConfig) } : { ...urlOrConfig };
    const batching = withPoolSize(options.batching, config.max) as SqlConnectOptions['batching'];
    resolveBatching(batching); // an invalid option throws before any pool exists
    checkSchema(options.schema, 'postgres');
    checkTablePrefix(options.tablePrefix);
    const { default: pg } = await importPeer('pg', 'PostgresStore', () => import('pg'));
    const pool = new pg.Pool(config);
    // An idle client that loses its connection (server restart) is discarded by the pool; without a listener its
    // 'error' event would crash the process. Statements report their own errors to the caller.
    pool.on('error', () => {});
    // pg-pool removes its own listener while a client is checked out: a connection killed mid-statement would then
    // emit 'error' with no listener and crash the process. The statement's promise still rejects (StoreUnavailable).
    const names = new Map<string, string>();
    pool.on('connect', (client) => {
      client.on('error', () => {});
      if (prepared) prepareStatementsOn(client as unknown as PreparingClient, names);
    });
    // Kysely and the store's own statements share the pool, and either may be the only one that used it: both end
    // it through one idempotent `end`.
    const endPool = endOnce(() => pool.end());
    // Kysely 0.29 also reads the pool's `options` (to cancel a statement); a variable, not a literal, so the same
    // object type-checks against 0.28's narrower pool type.
    // A client whose statement outlived `query_timeout` is destroyed on release, never lent again (a frozen host).
    const kyselyPool = {
      connect: async () => discardWhenTimedOut(await pool.connect()),
      end: endPool,
      options: pool.options,
    };
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: kyselyPool }) });
    const store = new PostgresStore<DB>({
      db,
      listenConnection: config,
      batching,
      schema: options.schema,
      tablePrefix: options.tablePrefix,
    });
    store.release = async () => {
      await db.destroy();
      await endPool();
    };
    store.runStatementsDirectly(pgStatementRunner(pool as unknown as PgQueryPool));
    return store;
  }
}

function checkUrl(url: string): string {
  if (!/^postgres(ql)?:\/\/./i.test(url)) {
    throw new InvalidOption('url', 'must be a postgres:// or postgresql:// connection URL');
  }
  return url;
}

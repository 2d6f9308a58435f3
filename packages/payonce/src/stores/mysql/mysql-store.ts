import { Kysely, MysqlDialect, type MysqlPool } from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import { importPeer } from '../../core/import-peer.js';
import { timerMs } from '../../core/options.js';
import { resolveBatching, withPoolSize } from '../sql/batch-options.js';
import { endOnce } from '../sql/end-once.js';
import { mysqlDialect } from '../sql/mysql-dialect.js';
import type { ReceiptsDatabase } from '../sql/receipts-table.js';
import { type SqlConnectOptions, SqlStore, type SqlStoreOptions } from '../sql/sql-store.js';
import { checkSchema } from '../sql/table-namespace.js';
import { checkTablePrefix } from '../sql/table-prefix.js';
import { boundedMysqlPool, type RawMysqlPool } from './bounded-mysql-pool.js';
import { type MysqlQueryPool, mysqlStatementRunner } from './mysql-statement-runner.js';

/**
 * The part of a `mysql2` `PoolOptions` payonce documents; any other `mysql2` pool option is passed through.
 */
export interface MysqlPoolConfig {
  /** A `mysql://user:password@host:port/database` URL. */
  uri?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  /** Maximum pool size. @default 10 (mysql2) */
  connectionLimit?: number;
  /**
   * payonce's bound, in milliseconds (positive integer), on lending a pooled connection and on each statement's
   * answer; a statement that outlives it fails (`fatal`, code `PROTOCOL_SEQUENCE_TIMEOUT`) and its connection is
   * destroyed (`boundedMysqlPool`). Not passed to mysql2. @default none (mysql2 waits without a bound)
   */
  queryTimeoutMs?: number;
  [option: string]: unknown;
}

/**
 * Receipts in MySQL 8 or MariaDB 10.6+ through Kysely and `mysql2` (an optional peer dependency). A claim is
 * one plain INSERT on the primary key whose duplicate-key error 1062 means "already exists"; takeover,
 * complete and fail are compare-and-set UPDATEs judged by the affected-row count (correct with and without
 * mysql2's default FOUND_ROWS flag, because every such UPDATE changes `status` or `attempts`). Key columns are
 * VARBINARY, so `evt_A`, `evt_a` and `evt_a ` are three keys. Deadlocks (1213) and lock waits (1205) are
 * retried outside a caller's transaction. A stored response must fit `max_allowed_packet` when hex-escaped
 * (bodies up to ~7 MB with the 16 MB default). Create the table with `store.migrate()`, `payonce migrate` or
 * `schema('mysql')`.
 *
 * `new MysqlStore({ db })` uses the application's `Kysely` (with a `MysqlDialect`) and leaves it open on
 * `close()`; `MysqlStore.connect(url)` creates and owns a pool. Inside `runInTransaction`, a lost claim is
 * read with `LOCK IN SHARE MODE`, so REPEATABLE READ still sees the winner's committed row.
 * @see docs/design.md §2–3; issue 2 "MysqlStore".
 * @example const store = await MysqlStore.connect('mysql://app:secret@127.0.0.1:3306/shop');
 */
export class MysqlStore<DB = ReceiptsDatabase> extends SqlStore<DB> {
  /** Wraps the caller's Kysely instance (any database type, `MysqlDialect`). Nothing is opened or owned. */
  constructor(options: SqlStoreOptions<DB>) {
    super(options.db, mysqlDialect, options.batching, options.schema, options.tablePrefix);
  }

  /**
   * Creates a `mysql2` pool from a `mysql://` URL or pool options, and returns a store that owns it (`close()`
   * ends the pool). Connections are opened lazily, on the first statement.
   * @throws {InvalidOption} for a URL that is not `mysql://` (or `mariadb://`).
   * `options.batching` batches concurrent claims and completions (`SqlStoreOptions.batching`); its
   * `maxConcurrentBatches` defaults to this pool's size.
   * @throws {InvalidOption} for an invalid `options.batching` or `queryTimeoutMs`.
   * @throws {MissingPeer} `mysql2` is not installed (the message gives the `npm install` line).
   */
  static async connect<DB = ReceiptsDatabase>(
    urlOrConfig: string | MysqlPoolConfig,
    options: SqlConnectOptions = {},
  ): Promise<MysqlStore<DB>> {
    const { queryTimeoutMs, ...config }: MysqlPoolConfig =
      typeof urlOrConfig === 'string' ? { uri: checkUrl(urlOrConfig) } : { ...urlOrConfig };
    if (queryTimeoutMs !== undefined) timerMs('queryTimeoutMs', queryTimeoutMs);
    const batching = withPoolSize(options.batching, config.connectionLimit) as SqlConnectOptions['batching'];
    resolveBatching(batching); // an invalid option throws before any pool exists
    checkSchema(options.schema, 'mysql');
    checkTablePrefix(options.tablePrefix);
    const { default: mysql } = await importPeer('mysql2', 'MysqlStore', () => import('mysql2'));
    const pool = mysql.createPool(config) as unknown as MysqlPool;
    // Kysely and the store's own statements share the pool, and either may be the only one that used it: both end
    // it through one idempotent `end`.
    const endPool = endOnce(
      () => new Promise<void>((resolve, reject) => pool.end((error) => (error ? reject(error) : resolve()))),
    );
    const end: MysqlPool['end'] = (callback) => {
      endPool().then(() => callback(null), callback);
    };
    const bounded =
      queryTimeoutMs === undefined ? null : boundedMysqlPool(pool as unknown as RawMysqlPool, queryTimeoutMs, end);
    const facade: MysqlPool = bounded?.facade ?? { getConnection: (callback) => pool.getConnection(callback), end };
    const db = new Kysely<DB>({ dialect: new MysqlDialect({ pool: facade }) });
    const store = new MysqlStore<DB>({ db, batching, schema: options.schema, tablePrefix: options.tablePrefix });
    store.release = async () => {
      await db.destroy();
      await endPool();
    };
    store.runStatementsDirectly(
      mysqlStatementRunner(bounded === null ? (pool as unknown as MysqlQueryPool) : { query: bounded.query }),
    );
    return store;
  }
}

function checkUrl(url: string): string {
  if (/^mariadb:\/\/./i.test(url)) return `mysql://${url.slice('mariadb://'.length)}`;
  if (!/^mysql:\/\/./i.test(url)) throw new InvalidOption('url', 'must be a mysql:// connection URL');
  return url;
}

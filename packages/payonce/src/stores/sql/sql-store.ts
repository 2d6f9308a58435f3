import type { Kysely, QueryResult, Transaction } from 'kysely';
import { sql } from 'kysely';
import { InvalidOption, type StoreSchemaMissing, StoreUnavailable } from '../../core/errors.js';
import type { Receipt, StoredResponse } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import type {
  FinishRequest,
  InsertClaimRequest,
  InsertClaimResult,
  Store,
  TakeoverRequest,
  TransactionalStore,
} from '../../core/store.js';
import { resolveBatching } from './batch-options.js';
import type { BatchStatements } from './batch-statements.js';
import { runClaimBatch } from './batched-claims.js';
import { batchable, type CompleteRequest, runCompleteBatch } from './batched-completions.js';
import { Batcher, BatchSlots } from './batcher.js';
import { StatementCache, type StatementDefinition } from './compiled-statement.js';
import { claimForGroup, releaseGroupClaim } from './group-claims.js';
import { type MigrateOptions, type MigrationReport, migrate } from './migrate.js';
import { mysqlBatchStatements } from './mysql-batch-statements.js';
import { postgresBatchStatements } from './postgres-batch-statements.js';
import { RECEIPTS_TABLE, type ReceiptsDatabase } from './receipts-table.js';
import { withRetry } from './retry.js';
import { schemaMissingOf } from './schema-missing.js';
import { type SqlContext, sendFixed } from './sql-context.js';
import type { SqlDialect, SqlDialectName } from './sql-dialect.js';
import { SqlReceipts } from './sql-receipts.js';
import { checkSchema as checkSchemaOption, onSchema, qualifiedTable } from './table-namespace.js';
import { checkTablePrefix } from './table-prefix.js';
import { inOwnTransaction } from './transaction-connection.js';

/** Options shared by `new SqliteStore(…)`, `new PostgresStore(…)`, `new MysqlStore(…)`. */
export interface SqlStoreOptions<DB> {
  /**
   * The application's own Kysely instance, of any database type; the store reads and writes only
   * `payonce_receipts` through it. The store does not own it: `close()` leaves it open.
   */
  readonly db: Kysely<DB>;
  /**
   * Batched claims and completions (issue #17; PostgreSQL and MySQL/MariaDB): while a claim (or completion)
   * statement of this store is in flight, further calls queue and go out together as ONE multi-row statement and
   * one commit; each caller is answered only after the statement carrying its row committed. No timer window: a
   * call made while a batch slot is free is sent at once (concurrency 1 = batches of one, single-row statements).
   * Calls through `withTransaction` / `runInTransaction` are never batched; takeover, fail, find and purge always
   * send their own statement. `true` uses the defaults. SQLite rejects it (`InvalidOption`): better-sqlite3 runs each
   * statement synchronously, so no call ever waits behind one in flight.
   * @default false (one statement per call)
   * @throws {InvalidOption} (from the store's constructor or `connect`) for a value that is not a boolean or a
   *   `SqlBatching`, a field out of range, or batching on SQLite.
   * @see docs/design.md §3 "Batched claims and completions".
   */
  readonly batching?: boolean | SqlBatching;
  /**
   * The namespace of payonce's tables: a PostgreSQL schema, or a MySQL/MariaDB database on the same server. Every
   * statement payonce sends qualifies its tables with it (`"payonce".payonce_receipts`), on the store's pool and in a
   * caller's transaction alike, whatever the connection's `search_path` or current database; `migrate` creates it if
   * missing and puts every table, sequence, trigger, function and its ledger in it. Your own tables stay unqualified
   * (a Kysely transaction of `transaction()` is yours). Not on SQLite.
   * @default none: the connection's `search_path` (PostgreSQL) or database (MySQL), unqualified, as before
   * @throws {InvalidOption} (`schema`) on SQLite, or for a name that is not 1–63 letters, digits or `_`.
   * @see docs/your-stack.md "Migration tools".
   */
  readonly schema?: string;
  /**
   * What payonce's table names start with instead of `payonce_` (`billing_` → `billing_receipts`, `billing_outbox`,
   * `billing_migration`, …), for a database payonce shares (one SQLite file, a MySQL host that gives you one
   * database, a house rule on table names). Every index, constraint, trigger, function and the PostgreSQL
   * notification channel payonce names gets it too, so two prefixes live side by side in one database, each with its
   * own receipts, outbox and ledger. Every statement payonce sends uses it, on the store's pool and in a caller's
   * transaction; `migrate` creates the tables under it. Give every store, `payonce migrate --table-prefix` and
   * `--print-sql` the same prefix. Combines with `schema` (`"billing".billing_receipts`).
   * @default 'payonce_' (the names of earlier releases)
   * @throws {InvalidOption} (`tablePrefix`) for a value that is not 1–24 lower-case letters, digits or `_` starting
   *   with a letter or `_` (lower case: PostgreSQL folds unquoted names; 24: the longest derived name stays within
   *   PostgreSQL's 63-character identifier limit).
   * @see docs/your-stack.md "Namespaces".
   */
  readonly tablePrefix?: string;
}

/** Tuning of batched claims and completions (`SqlStoreOptions.batching`). */
export interface SqlBatching {
  /** Most rows one batched statement carries (1–10 000); further calls wait for the next batch. @default 256 */
  readonly maxBatchSize?: number;
  /**
   * Most batched statements in flight at once, claims and completions together (1–1 000): a new batch starts
   * whenever calls are queued and fewer are in flight. Set it to the pool size, so every connection can carry a
   * batch and none waits in the pool's queue. @default the pool size for `connect` (`max` / `connectionLimit`,
   * 10 when unset); 10 for a Kysely instance passed in (the default pool size of `pg` and `mysql2`)
   */
  readonly maxConcurrentBatches?: number;
}

/** Options of the static factories `PostgresStore.connect` and `MysqlStore.connect` beyond the pool's own. */
export interface SqlConnectOptions {
  /** @see SqlStoreOptions.batching */
  readonly batching?: boolean | SqlBatching;
  /**
   * The PostgreSQL schema (MySQL: database) of payonce's tables, qualified in every statement; checked before the
   * pool is created (`InvalidOption`). @see SqlStoreOptions.schema
   */
  readonly schema?: string;
  /** What payonce's table names start with instead of `payonce_`; checked before the pool is created. @see SqlStoreOptions.tablePrefix */
  readonly tablePrefix?: string;
}

/** The multi-row statements of each dialect; `null`: batching is refused there. */
const BATCH_STATEMENTS: Readonly<Record<SqlDialectName, BatchStatements | null>> = Object.freeze({
  postgres: postgresBatchStatements,
  mysql: mysqlBatchStatements,
  sqlite: null,
});

/**
 * The one Kysely implementation of the `Store` contract behind `SqliteStore`, `PostgresStore` and `MysqlStore`;
 * they differ only in their declared `SqlDialect`. Every step is one atomic statement (claim = one INSERT on
 * the primary key; takeover/complete/fail = compare-and-set UPDATEs judged by the affected-row count).
 * Transient errors (deadlock, lock wait, SQLITE_BUSY) are retried a few times with jittered back-off outside a
 * caller's transaction, never inside one. Driver errors propagate; the guard wraps them in `StoreUnavailable`.
 * Each fixed statement is built and compiled once per store (`compiled-statement.ts`) and then executed with fresh
 * parameters through `db.executeQuery`, on the pool or on a caller's transaction.
 * @see docs/design.md §3; `src/stores/store.ts`.
 */
export abstract class SqlStore<DB> implements TransactionalStore<Transaction<DB>> {
  /** The dialect name: `sqlite`, `postgres` or `mysql`. */
  readonly name: SqlDialectName;
  readonly supportsTransactions = true;
  /** The Kysely instance statements run on (the caller's, or the one a static factory created). */
  readonly db: Kysely<DB>;
  /** What differs on this backend (claim statement, key encoding, transient errors). */
  readonly dialect: SqlDialect;
  /** The schema (PostgreSQL) or database (MySQL) payonce's tables are qualified with; `null`: the connection's. */
  readonly schema: string | null;
  /** What payonce's table names start with (`SqlStoreOptions.tablePrefix`); `payonce_` by default. */
  readonly tablePrefix: string;
  private receipts: SqlReceipts;
  /**
   * The fixed statements compiled once on `db`, shared with every `withTransaction` view and with the payments,
   * outbox and delivery-journal statements run on this store (`executeStatement`).
   */
  readonly statements: StatementCache;
  /** Releases what a static factory created (pool, file handle); `null` when the caller owns `db`. */
  protected release: (() => Promise<void>) | null = null;
  private closing: Promise<void> | null = null;
  /** The store's own driver path for its fixed statements (`runStatementsDirectly`); `null`: through Kysely. */
  private direct: SqlContext['direct'] = null;

  /** The batching this store was made with, every field set; `null` when every call sends its own statement. */
  readonly batching: Required<SqlBatching> | null;
  private readonly claims: Batcher<InsertClaimRequest, InsertClaimResult> | null = null;
  private readonly completions: Batcher<CompleteRequest, boolean> | null = null;

  /**
   * @throws {InvalidOption} for an invalid `batching`, `schema` or `tablePrefix`, or batching on a dialect without
   *   batched statements.
   */
  protected constructor(
    db: Kysely<DB>,
    dialect: SqlDialect,
    batching?: boolean | SqlBatching,
    schema?: string,
    tablePrefix?: string,
  ) {
    this.db = db;
    this.batching = resolveBatching(batching);
    this.schema = checkSchemaOption(schema, dialect.name);
    this.tablePrefix = checkTablePrefix(tablePrefix);
    this.dialect = dialect;
    this.name = dialect.name;
    const receiptsDb = db as unknown as Kysely<ReceiptsDatabase>;
    // Fixed statements are compiled once on the qualified view: their text names the schema and the prefixed
    // tables, on any connection.
    this.statements = new StatementCache(onSchema(receiptsDb, this.schema, this.tablePrefix), dialect);
    const ctx = this.context(receiptsDb, false);
    this.receipts = new SqlReceipts(ctx);
    if (this.batching !== null) {
      const statements = BATCH_STATEMENTS[dialect.name];
      if (statements === null) {
        throw new InvalidOption('batching', `is not supported on ${dialect.name} (docs/design.md §3)`);
      }
      const slots = new BatchSlots(this.batching.maxConcurrentBatches);
      const size = this.batching.maxBatchSize;
      this.claims = new Batcher(
        slots,
        size,
        (entries) => runClaimBatch(ctx, statements, entries),
        (request) => this.receipts.insertClaim(request),
      );
      this.completions = new Batcher(
        slots,
        size,
        (entries) => runCompleteBatch(ctx, statements, entries),
        (request) => this.receipts.complete(request),
      );
    }
  }

  /**
   * Makes the store's own (non-transactional) single-row statements run through `direct` instead of
   * `db.executeQuery`; for a factory that owns `db`'s driver (`SqliteStore.open`: its single connection;
   * `PostgresStore.connect`, `MysqlStore.connect`: their pool). Caller transactions and the multi-row batched
   * statements keep running through Kysely.
   */
  protected runStatementsDirectly(direct: NonNullable<SqlContext['direct']>): void {
    this.direct = direct;
    this.receipts = new SqlReceipts({ ...this.context(this.db as unknown as Kysely<ReceiptsDatabase>, false), direct });
  }

  /** The statement context of this store on `db` (its pool, or a caller's transaction when `inTransaction`). */
  private context(db: Kysely<ReceiptsDatabase>, inTransaction: boolean): SqlContext {
    return {
      db,
      dialect: this.dialect,
      inTransaction,
      statements: this.statements,
      schema: this.schema,
      tablePrefix: this.tablePrefix,
      receiptsTable: qualifiedTable(this.dialect.name, this.schema, RECEIPTS_TABLE, this.tablePrefix),
    };
  }

  /**
   * Runs ONE fixed statement of any table of this database (compiled once in `statements`) outside any caller's
   * transaction, as one autocommit statement: on the store's own driver when a factory gave it one
   * (`SqliteStore.open`, `PostgresStore.connect`), else through `db`. Not retried; driver errors propagate
   * unchanged. The SQL delivery journal writes its rows with it.
   */
  executeFixed<N extends string, R, D>(
    definition: StatementDefinition<N, R, D>,
    values: Readonly<Record<N, unknown>>,
  ): Promise<QueryResult<R>> {
    return sendFixed(this.db as unknown as Kysely<D>, this.statements, this.direct, definition, values);
  }

  insertClaim(request: InsertClaimRequest): Promise<InsertClaimResult> {
    return this.claims ? this.claims.submit(request) : this.receipts.insertClaim(request);
  }

  takeover(request: TakeoverRequest): Promise<Receipt | null> {
    return this.receipts.takeover(request);
  }

  complete(request: FinishRequest & { readonly response: StoredResponse }): Promise<boolean> {
    return this.completions && batchable(request) ? this.completions.submit(request) : this.receipts.complete(request);
  }

  /** The heartbeat of a running claim (one fenced UPDATE of `claimed_at`, never batched). @see `Store.renewClaim` */
  renewClaim(request: FinishRequest): Promise<boolean> {
    return this.receipts.renewClaim(request);
  }

  fail(request: FinishRequest & { readonly error: string }): Promise<boolean> {
    return this.receipts.fail(request);
  }

  find(key: RequestKey): Promise<Receipt | null> {
    return this.receipts.find(key);
  }

  /** See `Store.recordReceiptTrace`: a row of `payonce_receipt_trace` (migration 0018), the first one kept. */
  recordReceiptTrace(key: RequestKey, traceContext: string): Promise<void> {
    return this.receipts.recordReceiptTrace(key, traceContext);
  }

  /** See `Store.receiptTraceOf`. */
  receiptTraceOf(key: RequestKey): Promise<string | null> {
    return this.receipts.receiptTraceOf(key);
  }

  purgeBatch(beforeMs: number, limit: number, provider?: string, abandonedBeforeMs?: number): Promise<number> {
    return this.receipts.purgeBatch(beforeMs, limit, provider, abandonedBeforeMs);
  }

  /** `StoreSchemaMissing` when `error` says payonce's table or schema does not exist, else `null`. */
  schemaError(error: unknown): StoreSchemaMissing | null {
    return schemaMissingOf(error, this.dialect.name, this.schema);
  }

  /**
   * A start-up check that payonce's receipts table is where this store looks for it (in its `schema`, else the
   * connection's search_path or database): one `select … where 1 = 0` on it, which reads no row. Call it after
   * connecting (and after `migrate`, when the application runs it), so a database that was never migrated, or a
   * `schema` option that names another schema, fails the start instead of every request.
   * @throws {StoreSchemaMissing} the table (or its schema or database) does not exist; the message names the fix.
   * @throws {StoreUnavailable} the database failed otherwise (the driver error is the `cause`).
   * @example await store.checkSchema(); // before app.listen(…)
   */
  async checkSchema(): Promise<void> {
    const table = qualifiedTable(this.dialect.name, this.schema, RECEIPTS_TABLE, this.tablePrefix);
    try {
      await sql.raw(`select 1 from ${table} where 1 = 0`).execute(this.db);
    } catch (error) {
      throw this.schemaError(error) ?? new StoreUnavailable('checkSchema', error);
    }
  }

  /**
   * A view of this store whose statements run on `tx`, a Kysely transaction the caller opened with
   * `db.transaction().execute(async (tx) => …)` on the same database: the receipt commits or rolls back with the
   * caller's business writes, and no statement is retried (a deadlock is rethrown to the caller).
   * @throws {InvalidOption} if `tx` is not a Kysely `Transaction`.
   * @see docs/design.md §3 "Transactional mode".
   */
  withTransaction(tx: Transaction<DB>): Store {
    if (tx?.isTransaction !== true)
      throw new InvalidOption(
        'tx',
        'must be a Kysely Transaction (db.transaction()); for a pg client or a Drizzle tx use payonce/tx/pg or payonce/tx/drizzle',
      );
    return new SqlReceipts(this.context(tx as unknown as Kysely<ReceiptsDatabase>, true));
  }

  /**
   * Claims the receipts of `requests` in `tx`, a transaction of this store's that a group commit runs, with one
   * multi-row statement (`claimForGroup`), so that each caller's own claim of its key in `tx` is answered without
   * one of its own and its completion waits for the commit (`GroupCommit.run`'s `claim`). PostgreSQL only: true
   * when made, false elsewhere (MySQL/MariaDB's multi-row claim in a transaction would hold gap locks across the
   * batch; SQLite has one connection).
   * @throws whatever the driver throws.
   */
  async claimTogether(tx: Transaction<DB>, requests: readonly InsertClaimRequest[]): Promise<boolean> {
    if (this.dialect.name !== 'postgres') return false;
    await claimForGroup(
      this.context(tx as unknown as Kysely<ReceiptsDatabase>, true),
      postgresBatchStatements,
      requests,
    );
    return true;
  }

  /**
   * Deletes the claim row `claimTogether` inserted in `tx` for `request`'s key (when it did): its caller's work
   * failed, or (`untakenOnly`) ended without claiming the key. @throws whatever the driver throws.
   */
  releaseClaim(tx: Transaction<DB>, request: InsertClaimRequest, untakenOnly: boolean): Promise<void> {
    return releaseGroupClaim(this.context(tx as unknown as Kysely<ReceiptsDatabase>, true), request.key, untakenOnly);
  }

  /**
   * Runs `work` in one new Kysely transaction on `db` (`db.transaction().execute(work)`) and retries the WHOLE
   * transaction after a transient error of the dialect (deadlock, lock wait timeout, SQLITE_BUSY; also when it is
   * the `cause` of the guard's `StoreUnavailable`), at most a few times with jittered back-off. `work` must only
   * write to the database: it may run again after a rollback. On SQLite the transaction starts deferred; start it
   * with a write (the guard's claim is one) so two connections cannot deadlock upgrading read locks.
   * @throws whatever `work` throws (after the rollback), or the driver error after the last retry.
   */
  transaction<T>(work: (tx: Transaction<DB>) => Promise<T>): Promise<T> {
    const transient = (error: unknown): boolean =>
      this.dialect.isTransientError(error) ||
      (error instanceof Error && error.cause !== undefined && this.dialect.isTransientError(error.cause));
    return withRetry(() => inOwnTransaction(this.db.transaction(), work), transient, true);
  }

  /**
   * Applies pending payonce migrations through this store's `db` (see `migrate` in `payonce/sql`); `options.only`
   * limits the run to some groups (`{ only: ['receipts', 'outbox', 'journal'] }`), a later run adds the others.
   * Everything goes into the store's `schema` when it has one, under its `tablePrefix` (`options.schema` and
   * `options.tablePrefix` are ignored).
   * @throws {InvalidOption} (`only`) for an empty list or an unknown group name.
   * @throws {Error} when a migration fails, with the driver error as `cause`.
   */
  migrate(options: MigrateOptions = {}): Promise<MigrationReport> {
    return migrate(this.db, this.dialect.name, {
      only: options.only,
      schema: this.schema ?? undefined,
      tablePrefix: this.tablePrefix,
    });
  }

  /**
   * Closes what this store created itself (the pool or SQLite handle of `open`/`connect`); a `db` passed by the
   * caller is left open. Safe to call more than once.
   */
  close(): Promise<void> {
    this.closing ??= this.release ? this.release() : Promise.resolve();
    return this.closing;
  }
}

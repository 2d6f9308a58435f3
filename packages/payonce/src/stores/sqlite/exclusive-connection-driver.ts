import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
} from 'kysely';
import { BusyWaitingConnection } from './busy-waiting-connection.js';

/** How the connection of an `ExclusiveConnectionDriver` waits for another connection's write lock. */
export interface LockWait {
  /** How long a statement keeps retrying SQLITE_BUSY, in milliseconds (`SqliteOpenOptions.busyTimeoutMs`). */
  readonly lockWaitMs: number;
  /** Whether the connection has a transaction open (better-sqlite3 `database.inTransaction`). */
  readonly inTransaction: () => boolean;
}

/** Runs one fixed statement (SQL text and its parameters) on the connection; the result is shaped as Kysely's. */
export type ExclusiveStatementRunner = (sql: string, parameters: readonly unknown[]) => Promise<QueryResult<unknown>>;

/**
 * The driver of the one SQLite connection a `SqliteStore.open` store owns. Kysely's own `SqliteDriver` does the
 * SQL work (statements, transactions, savepoints); this wrapper replaces its connection mutex, which wakes every
 * waiter on each release, by a FIFO hand-off (the connection passes straight to the next waiter and is never free
 * while someone waits), and adds `runStatement`: the store's fixed statements run synchronously when no one holds
 * the connection and otherwise wait for their turn in the same queue. So a transaction (`runInTransaction`,
 * `db.transaction()`, a migration) that holds the connection never sees another caller's statement inside it, as
 * with Kysely's driver; what is saved is Kysely's per-statement promise layers on the store's hot path (CPU per
 * delivery measured in packages/bench/notes/profiles.md). Kysely's statements on the connection wait for another
 * connection's write lock without blocking the event loop (`BusyWaitingConnection`), and every transaction starts
 * with `BEGIN IMMEDIATE`: it takes the write lock (waiting for it) before its first statement, so no statement
 * inside it can fail with SQLITE_BUSY, which SQLite does not allow to retry there (issue 34 item 5).
 */
export class ExclusiveConnectionDriver implements Driver {
  readonly #inner: SqliteDriver;
  readonly #database: SqliteDatabase;
  #connection: DatabaseConnection | null = null;
  #initializing: Promise<void> | null = null;
  #held = false;
  readonly #waiters: (() => void)[] = [];
  #destroyed = false;
  readonly #lockWait: LockWait;

  constructor(database: SqliteDatabase, lockWait: LockWait) {
    this.#database = database;
    this.#inner = new SqliteDriver({ database });
    this.#lockWait = lockWait;
  }

  /** Opens the inner driver and keeps its one connection for good (its own mutex is then never contended). */
  init(): Promise<void> {
    this.#initializing ??= (async () => {
      await this.#inner.init();
      const { lockWaitMs, inTransaction } = this.#lockWait;
      this.#connection = new BusyWaitingConnection(await this.#inner.acquireConnection(), lockWaitMs, inTransaction);
    })();
    return this.#initializing;
  }

  acquireConnection(): Promise<DatabaseConnection> {
    if (this.#destroyed) return Promise.reject(new Error('driver has already been destroyed'));
    const connection = this.#connection;
    if (connection === null) return this.init().then(() => this.acquireConnection());
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve(connection);
    }
    return new Promise((resolve) => this.#waiters.push(() => resolve(connection)));
  }

  async releaseConnection(): Promise<void> {
    this.#handOff();
  }

  /** `BEGIN IMMEDIATE` (Kysely's driver sends a deferred `BEGIN`), retried while another connection writes. */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(connection);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.savepoint(connection, name, compile);
  }

  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.#inner.rollbackToSavepoint(connection, name, compile);
  }

  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.#inner.releaseSavepoint(connection, name, compile);
  }

  async destroy(): Promise<void> {
    this.#destroyed = true;
    await this.#inner.destroy();
  }

  /**
   * Runs one statement at once when the connection is free (synchronously, as better-sqlite3 does), else after
   * everyone queued before it; the result has Kysely's shape (`numAffectedRows`/`insertId` as bigint for a write,
   * `rows` for a read). Rejects with the driver's error, or when the driver was destroyed.
   */
  readonly runStatement: ExclusiveStatementRunner = (sql, parameters) => {
    if (this.#destroyed) return Promise.reject(new Error('driver has already been destroyed'));
    if (this.#held || this.#connection === null) {
      return this.acquireConnection().then(() => {
        try {
          return this.#execute(sql, parameters);
        } finally {
          this.#handOff();
        }
      });
    }
    try {
      return Promise.resolve(this.#execute(sql, parameters));
    } catch (error) {
      return Promise.reject(error);
    }
  };

  /** What Kysely's `SqliteConnection.executeQuery` does, on the (cached) prepared statement. */
  #execute(sql: string, parameters: readonly unknown[]): QueryResult<unknown> {
    const statement = this.#database.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return {
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
      rows: [],
    };
  }

  #handOff(): void {
    const next = this.#waiters.shift();
    if (next === undefined) this.#held = false;
    else next();
  }
}

/** A `SqliteDialect` whose driver is `driver` (Kysely's query compiler, adapter and introspector are kept). */
export class ExclusiveConnectionDialect extends SqliteDialect {
  readonly #driver: ExclusiveConnectionDriver;

  constructor(driver: ExclusiveConnectionDriver, database: SqliteDatabase) {
    super({ database });
    this.#driver = driver;
  }

  override createDriver(): Driver {
    return this.#driver;
  }
}

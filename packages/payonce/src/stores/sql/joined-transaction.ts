import {
  type CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  Kysely,
  MysqlAdapter,
  MysqlIntrospector,
  MysqlQueryCompiler,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Transaction,
} from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import { SQL_DIALECT_NAMES, type SqlDialectName } from './sql-dialect.js';
import { withDirectStatements } from './transaction-connection.js';

/** What one statement run by a {@link SqlExecutor} gives back. */
export interface SqlExecutorResult {
  /** The result rows as the driver returns them: one object per row, keyed by column name. */
  readonly rows: readonly unknown[];
  /** Rows inserted, updated or deleted by an INSERT / UPDATE / DELETE (MySQL: affected rows); absent for a SELECT. */
  readonly numAffectedRows?: bigint;
  /** The auto-increment id an INSERT generated (MySQL `insertId`, SQLite `lastInsertRowid`); absent otherwise. */
  readonly insertId?: bigint;
  /**
   * The server's transaction status after the statement, where the driver reports it with the result (MySQL's OK
   * packet, `SERVER_STATUS_IN_TRANS`): `false` means the statement ran on its own, outside any transaction.
   */
  readonly inTransaction?: boolean;
}

const ENDED_MEANWHILE =
  "is no longer inside its transaction: it ended while payonce's call was running (a call not awaited inside the " +
  'transaction?), so this statement ran on its own. Await payonce inside the transaction';

/**
 * The executor seam: runs ONE SQL statement with its parameters on the caller's open transaction and gives back the
 * rows as the driver returns them, plus the dialect the SQL must be written in. Every one-commit step of payonce
 * (receipt claim and completion, outbox enqueue, payments transitions) runs through it when it joins a transaction
 * that the application's own stack opened (node-postgres, Drizzle, …): the adapters of `payonce/tx/*` make one from
 * the object each stack has inside its transaction. It never begins, commits or rolls back: the caller owns that.
 * Placeholders are the dialect's (`$1` on PostgreSQL, `?` on MySQL and SQLite).
 * @see docs/your-stack.md "Transactions of your stack".
 */
export interface SqlExecutor {
  /** The SQL dialect of the caller's database: `postgres`, `mysql` or `sqlite`. */
  readonly dialect: SqlDialectName;
  /** Runs `sql` with `parameters` on the caller's transaction. Driver errors propagate unchanged. */
  execute(sql: string, parameters: readonly unknown[]): Promise<SqlExecutorResult>;
  /**
   * Whether a statement of this executor can still only run inside the caller's transaction, from the stack's own
   * state, without a statement: `false` once the transaction has ended (node-postgres' transaction status, Knex's
   * `isCompleted()`, TypeORM's query runner, better-sqlite3's `inTransaction`), or always `true` where the stack
   * itself refuses statements on an ended transaction (Kysely, Prisma). Absent, or `undefined`: payonce asks the
   * database before it writes (PostgreSQL: a transaction-local setting; MariaDB: `@@in_transaction`).
   */
  readonly isOpen?: () => boolean | undefined;
  /**
   * The object every transaction of this stack on one database shares (a pg connection, a Knex client, a TypeORM
   * `DataSource`, a better-sqlite3 `Database`), set by adapters that also give `isOpen`: payonce then checks the
   * transaction's database against its store's once per origin, instead of with a statement per transaction.
   */
  readonly origin?: object;
}

/** The one connection of a joined transaction: every statement goes to the executor. */
class ExecutorConnection implements DatabaseConnection {
  constructor(private readonly executor: SqlExecutor) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.executor.execute(query.sql, query.parameters);
    // The caller's transaction ended under payonce's call: stop before the handler runs (after the claim) or before
    // anything else is written; the claim, committed on its own, is a lease that expires and is taken over.
    if (result.inTransaction === false || this.executor.isOpen?.() === false) {
      throw new InvalidOption('tx', ENDED_MEANWHILE);
    }
    const rows = result.rows as R[];
    return {
      rows,
      ...(result.numAffectedRows === undefined ? {} : { numAffectedRows: result.numAffectedRows }),
      ...(result.insertId === undefined ? {} : { insertId: result.insertId }),
    };
  }

  // biome-ignore lint/correctness/useYield: a joined transaction cannot stream; the generator only throws.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new InvalidOption('stream', 'is not supported on a joined transaction');
  }
}

/**
 * A Kysely driver over a caller's open transaction: one connection, and BEGIN / COMMIT / ROLLBACK that do nothing,
 * because the caller's stack begins and ends the transaction (a throw reaches the caller, who rolls back).
 */
class ExecutorDriver implements Driver {
  private readonly connection: ExecutorConnection;
  constructor(executor: SqlExecutor) {
    this.connection = new ExecutorConnection(executor);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {}
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/** Kysely's adapter, compiler and introspector of each dialect (SQL text only; no driver of Kysely is used). */
function kyselyDialectOf(executor: SqlExecutor) {
  const parts = {
    postgres: () => ({
      adapter: new PostgresAdapter(),
      compiler: new PostgresQueryCompiler(),
      introspector: PostgresIntrospector,
    }),
    mysql: () => ({ adapter: new MysqlAdapter(), compiler: new MysqlQueryCompiler(), introspector: MysqlIntrospector }),
    sqlite: () => ({
      adapter: new SqliteAdapter(),
      compiler: new SqliteQueryCompiler(),
      introspector: SqliteIntrospector,
    }),
  }[executor.dialect]();
  return {
    createAdapter: (): DialectAdapter => parts.adapter,
    createDriver: (): Driver => new ExecutorDriver(executor),
    createQueryCompiler: () => parts.compiler,
    createIntrospector: (db: Kysely<unknown>) => new parts.introspector(db),
  };
}

/**
 * Checks that `executor` is a {@link SqlExecutor}.
 * @throws {InvalidOption} naming what is accepted, for anything else.
 */
export function checkExecutor(executor: unknown): SqlExecutor {
  const candidate = executor as Partial<SqlExecutor> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.execute !== 'function' ||
    !SQL_DIALECT_NAMES.includes(candidate.dialect as SqlDialectName)
  ) {
    throw new InvalidOption(
      'executor',
      'must be a SqlExecutor { dialect: "postgres" | "mysql" | "sqlite", execute(sql, parameters) } (see payonce/tx/pg, payonce/tx/drizzle)',
    );
  }
  return candidate as SqlExecutor;
}

/**
 * Runs `work` with `trx`, a Kysely `Transaction` whose every statement runs on the caller's open transaction through
 * `executor`: pass `trx` to any one-commit API of payonce (`guard.runInTransaction`, `outbox.enqueueOnce`, the
 * payments' transitions) and its rows commit or roll back with the caller's own writes. `trx` refuses statements once
 * `work` has settled. While `work` runs, payonce's fixed statements skip Kysely's executor (`withDirectStatements`). Nothing is begun, committed or rolled back here, and no statement is retried.
 * @throws {InvalidOption} `executor` is not a `SqlExecutor`.
 * @throws whatever `work` throws, unchanged (the caller's stack then rolls back).
 * @see docs/your-stack.md "Transactions of your stack".
 */
export async function joinTransaction<DB, T>(
  executor: SqlExecutor,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  const checked = checkExecutor(executor);
  const db = new Kysely<DB>({ dialect: kyselyDialectOf(checked) });
  // payonce's fixed statements go straight to the executor while `work` runs (as in the store's own transactions,
  // `SqlStore.transaction`), skipping Kysely's executor and connection provider per statement.
  return await db.transaction().execute((trx) => withDirectStatements(trx, () => work(trx)));
}

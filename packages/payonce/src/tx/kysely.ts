/**
 * `payonce/tx/kysely`: payonce's one-commit mode in the application's OWN Kysely transaction (`trx` of
 * `db.transaction().execute(async (trx) => …)`, its own `Kysely` instance and dialect: PostgreSQL, MySQL/MariaDB or
 * SQLite). payonce's statements run on that `trx` as compiled queries, past the application's plugins (a
 * `CamelCasePlugin` of the application never renames payonce's columns); the application's own queries stay its own.
 * @see docs/your-stack.md "Kysely".
 */
import { CompiledQuery, createQueryId, type QueryExecutor, type QueryResult, sql } from 'kysely';
import { InvalidOption } from '../core/errors.js';
import type { RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { TransactionOf } from '../core/store.js';
import type { SqlExecutor } from '../stores/sql/joined-transaction.js';
import { SQL_DIALECT_NAMES, type SqlDialectName } from '../stores/sql/sql-dialect.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { type JoinableStore, type JoinedHandler, runJoined, withJoined } from './run-joined.js';

export type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
export type { SqlDialectName } from '../stores/sql/sql-dialect.js';
export type { StackTransactions } from '../stores/sql/stack-transactions.js';
export type { JoinableStore, JoinedHandler } from './run-joined.js';

/**
 * A Kysely instance (the part payonce uses; Kysely 0.28 and 0.29 alike): a `Transaction` is one whose
 * `isTransaction` is `true`.
 */
export interface KyselyInstanceLike {
  /** `true` on a `Transaction` (and a `ControlledTransaction`), `false` on a `Kysely` database. */
  readonly isTransaction: boolean;
  /** The executor, with the instance's adapter and query compiler (read to detect the SQL dialect). */
  getExecutor(): QueryExecutor;
}

/** The application's Kysely `Transaction` (the part payonce uses). */
export interface KyselyTransactionLike extends KyselyInstanceLike {
  /** Runs one compiled query on the transaction's connection. */
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
  /** The same transaction without the application's plugins. */
  withoutPlugins(): KyselyTransactionLike;
}

/** Options of {@link kyselyExecutor} and {@link kyselyTransactions}. */
export interface KyselyJoinOptions {
  /**
   * The SQL dialect of the application's database, for a Kysely dialect whose SQL payonce cannot recognise (see
   * {@link kyselyDialectOf}). @default detected from the instance's query compiler
   */
  readonly dialect?: SqlDialectName;
}

const NOT_A_TRANSACTION =
  'must be the trx of db.transaction().execute(async (trx) => …) (a Kysely Transaction), not the Kysely database';

/**
 * The dialect read from each Kysely instance's query compiler, by the instance's dialect adapter: `new Kysely` makes
 * one adapter (with its compiler), which its transactions and `withPlugin` copies share, so the probe is compiled
 * once per application database, not once per transaction. `null`: the compiler wrote none of payonce's dialects.
 */
const dialectByAdapter = new WeakMap<object, SqlDialectName | null>();

/** What the compiler of `executor` writes for a column reference and a parameter, past any plugin. */
function probeDialect(executor: QueryExecutor): SqlDialectName | undefined {
  const probe = executor.compileQuery(sql`${sql.ref('payonce_probe')} = ${0}`.toOperationNode(), createQueryId()).sql;
  if (probe === '"payonce_probe" = $1') return 'postgres';
  if (probe === '`payonce_probe` = ?') return 'mysql';
  if (probe === '"payonce_probe" = ?') return 'sqlite';
  return undefined;
}

/**
 * The SQL dialect of `db`, an application's Kysely instance, read from what its query compiler writes for a column
 * reference and a parameter: `"c" = $1` is PostgreSQL, `` `c` = ? `` MySQL/MariaDB, `"c" = ?` SQLite. It holds for
 * Kysely's own dialects and for third-party dialects built on their compilers, in Kysely 0.28 and 0.29 alike. The
 * application's plugins play no part (the probe is compiled without them), and the answer is kept per Kysely
 * database (its dialect adapter), so its transactions reuse it. Nothing is sent to the database.
 * @returns the dialect, or `undefined` when the compiler writes none of these (MSSQL, an unknown compiler).
 */
export function kyselyDialectOf(db: KyselyInstanceLike): SqlDialectName | undefined {
  const executor = db.getExecutor();
  const adapter: unknown = executor.adapter;
  if (typeof adapter !== 'object' || adapter === null) return probeDialect(executor);
  const known = dialectByAdapter.get(adapter);
  if (known !== undefined) return known ?? undefined;
  const detected = probeDialect(executor);
  dialectByAdapter.set(adapter, detected ?? null);
  return detected;
}

/** @throws {InvalidOption} `candidate` is not a Kysely instance. */
function checkInstance(candidate: unknown, name: string, accepted: string): KyselyInstanceLike {
  const instance = candidate as Partial<KyselyTransactionLike> | null;
  if (
    typeof instance !== 'object' ||
    instance === null ||
    typeof instance.isTransaction !== 'boolean' ||
    typeof instance.getExecutor !== 'function'
  ) {
    throw new InvalidOption(name, accepted);
  }
  return instance as KyselyInstanceLike;
}

/**
 * `db`'s dialect: `chosen` when given, else detected.
 * @throws {InvalidOption} `chosen` is not a dialect name, or nothing was chosen and the dialect cannot be detected.
 */
function dialectFor(db: KyselyInstanceLike, chosen: SqlDialectName | undefined): SqlDialectName {
  if (chosen !== undefined) {
    if (!SQL_DIALECT_NAMES.includes(chosen)) throw new InvalidOption('dialect', 'must be postgres, mysql or sqlite');
    return chosen;
  }
  const detected = kyselyDialectOf(db);
  if (detected === undefined) {
    throw new InvalidOption(
      'dialect',
      'could not be detected from the Kysely instance (its SQL is not PostgreSQL, MySQL or SQLite): pass { dialect }',
    );
  }
  return detected;
}

/**
 * The executor over a checked transaction, in `dialect`: each statement runs on the transaction's own connection,
 * lent by the transaction's connection provider (`getExecutor().provideConnection`), which answers in the order
 * asked and refuses once the application's transaction has committed or rolled back, as `trx.executeQuery` does.
 * Kysely's query executor is skipped: no plugin sees payonce's statements or rows (an application's
 * `CamelCasePlugin` never renames payonce's columns), and no executor copy is made per statement.
 */
function executorOver(trx: KyselyTransactionLike, dialect: SqlDialectName): SqlExecutor {
  const executor = trx.getExecutor();
  return {
    dialect,
    // Kysely refuses a statement on a transaction that has committed or rolled back ("Transaction is already …").
    isOpen: () => true,
    async execute(text, parameters) {
      const query = CompiledQuery.raw(text, [...parameters]);
      const { rows, numAffectedRows } = await executor.provideConnection((connection) =>
        connection.executeQuery<unknown>(query),
      );
      return numAffectedRows === undefined ? { rows } : { rows, numAffectedRows };
    },
  };
}

/** @throws {InvalidOption} `trx` is not a Kysely `Transaction`. */
function checkTransaction(trx: unknown): KyselyTransactionLike {
  const instance = checkInstance(trx, 'trx', NOT_A_TRANSACTION) as Partial<KyselyTransactionLike>;
  if (
    instance.isTransaction !== true ||
    typeof instance.executeQuery !== 'function' ||
    typeof instance.withoutPlugins !== 'function'
  ) {
    throw new InvalidOption('trx', NOT_A_TRANSACTION);
  }
  return instance as KyselyTransactionLike;
}

/**
 * The executor seam over `trx`, the application's own Kysely `Transaction`: payonce's statements run as
 * `CompiledQuery.raw(sql, parameters)` on the transaction's connection (`trx.getExecutor().provideConnection`),
 * without the application's plugins (whose result transforms would rename payonce's columns) and without Kysely's
 * query executor around each (packages/bench/notes/stack.md). The dialect is `options.dialect`, else detected (see
 * {@link kyselyDialectOf}). A `Kysely` database (not a transaction) is refused: its statements may run on other
 * connections, outside the transaction.
 * @throws {InvalidOption} `trx` is not a Kysely `Transaction`, or its dialect is neither given nor detectable.
 */
export function kyselyExecutor(trx: KyselyTransactionLike, options: KyselyJoinOptions = {}): SqlExecutor {
  const checked = checkTransaction(trx);
  return executorOver(checked, dialectFor(checked, options.dialect));
}

/** The executor over `trx` for `store`: the detected dialect, or the store's when it cannot be detected. */
function executorForStore(trx: KyselyTransactionLike, store: JoinableStore | undefined): SqlExecutor {
  const checked = checkTransaction(trx);
  const dialect = kyselyDialectOf(checked) ?? store?.dialect?.name;
  return executorOver(checked, dialectFor(checked, dialect));
}

/**
 * Runs `work` with `payonceTx`, the application's Kysely transaction `trx` as payonce's own Kysely `Transaction`
 * typed for `store`'s tables, for payonce's one-commit calls that take one (`outbox.enqueueOnce(payonceTx, …)`, the
 * payments' transitions). `store` is the payonce store on the same database. (Passing the application's `trx`
 * straight to those calls also works when it is typed for payonce's tables; this keeps the types apart.)
 * @throws {InvalidOption} `trx` is not a Kysely `Transaction`, or `store` is not a SQL store of its dialect.
 * @throws whatever `work` throws (the application's `db.transaction()` then rolls back).
 * @example
 * await db.transaction().execute((trx) =>
 *   withKyselyTransaction(store, trx, (payonceTx) => outbox.enqueueOnce(payonceTx, 'order.fulfil', `order:${id}`, { id })),
 * );
 */
export async function withKyselyTransaction<S extends JoinableStore, T>(
  store: S,
  trx: KyselyTransactionLike,
  work: (payonceTx: TransactionOf<S>) => Promise<T>,
): Promise<T> {
  return await withJoined(store, executorForStore(trx, store), work);
}

/**
 * `guard.runInTransaction` in the application's own Kysely transaction `trx`: the receipt, `handler`'s writes on
 * `trx` and any outbox row enqueued with its third argument commit together when `db.transaction()` commits, or not
 * at all (a throw rolls the whole transaction back). `handler` gets `trx` itself, typed as the application's
 * (`Transaction<TheirDatabase>`). A duplicate inside a transaction never waits for an in-flight claim (see
 * `runJoined`): it replays, or gets `RequestInProgress` (HTTP 409).
 * @throws {InvalidOption} `trx` is not a Kysely `Transaction`, or the guard's store is not a SQL store of its dialect.
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws.
 * @see docs/your-stack.md "Kysely".
 * @example
 * await db.transaction().execute((trx) =>
 *   runInKyselyTransaction(guard, trx, new RequestKey('stripe', event.id), async (trx) => {
 *     await trx.updateTable('orders').set({ paid: true }).where('id', '=', orderId).execute();
 *   }),
 * );
 */
export async function runInKyselyTransaction<S extends JoinableStore, X extends KyselyTransactionLike>(
  guard: IdempotencyGuard<S>,
  trx: X,
  key: RequestKey,
  handler: JoinedHandler<X, TransactionOf<S>>,
  options: RunOptions = {},
): Promise<Outcome> {
  return await runJoined(guard, executorForStore(trx, guard?.store), trx, key, handler, options);
}

/** An application's Kysely database (the part payonce uses): it opens transactions. */
export interface KyselyDatabaseLike<X extends KyselyTransactionLike> extends KyselyInstanceLike {
  /** Kysely's transaction builder: `execute(work)` commits when `work` resolves, rolls back when it throws. */
  transaction(): { execute<T>(work: (trx: X) => Promise<T>): Promise<T> };
}

/**
 * Transactions of the application's Kysely database `db` for the parts of payonce that open one themselves (a
 * one-commit webhook endpoint, an Idempotency-Key route): each is `db.transaction().execute((trx) => …)`, and the
 * handler gets that `trx`. The dialect is `options.dialect`, else detected from `db` (see {@link kyselyDialectOf}).
 * @throws {InvalidOption} `db` is not a Kysely database (a `Transaction` is refused: Kysely cannot nest one), or its
 * dialect is neither given nor detectable.
 * @example createWebhookIntake({ guard, endpoints: { stripe: { transaction: kyselyTransactions(db), … } } })
 */
export function kyselyTransactions<X extends KyselyTransactionLike>(
  db: KyselyDatabaseLike<X>,
  options: KyselyJoinOptions = {},
): StackTransactions<X> {
  const accepted = 'must be a Kysely database (new Kysely({ dialect })), not a transaction';
  const instance = checkInstance(db, 'db', accepted);
  if (instance.isTransaction || typeof db.transaction !== 'function') throw new InvalidOption('db', accepted);
  const dialect = dialectFor(instance, options.dialect);
  return {
    dialect,
    stack: 'kysely',
    transaction: (work) => db.transaction().execute((trx) => work(trx, executorOver(checkTransaction(trx), dialect))),
  };
}

/**
 * `payonce/tx/typeorm`: payonce's one-commit mode in a TypeORM transaction: the `EntityManager` of
 * `dataSource.transaction(async (manager) => …)`, or a `QueryRunner` after `queryRunner.startTransaction()`. payonce's
 * statements run as `queryRunner.query(sql, parameters, true)` (TypeORM's structured result: `records`, `affected`)
 * on the transaction's own connection; the application's entities, repositories and query builders stay TypeORM's.
 * This entry imports nothing from `typeorm` at run time: it reads the shape of the objects it is handed.
 * @see docs/your-stack.md "TypeORM".
 */
import { InvalidOption } from '../core/errors.js';
import type { RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { TransactionOf } from '../core/store.js';
import type { SqlExecutor } from '../stores/sql/joined-transaction.js';
import type { SqlDialectName } from '../stores/sql/sql-dialect.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { type JoinableStore, type JoinedHandler, runJoined, withJoined } from './run-joined.js';

export type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
export type { StackTransactions } from '../stores/sql/stack-transactions.js';
export type { JoinableStore, JoinedHandler } from './run-joined.js';

/** A TypeORM `DataSource` as payonce reads it: its options name the database type. */
export interface TypeormDataSourceLike {
  /** The data source's options; `type` is `postgres`, `mysql`, `mariadb` or `better-sqlite3` (`sqlite` on 0.3). */
  readonly options: { readonly type: string };
}

/** What TypeORM's `queryRunner.query(sql, parameters, true)` answers (its `QueryResult`; the part payonce reads). */
export interface TypeormQueryResultLike {
  /** The rows of a statement that returns rows; TypeORM leaves it unset for a write on SQLite. */
  readonly records?: unknown[];
  /** Rows the statement changed (PostgreSQL: `rowCount`, MySQL: `affectedRows`, SQLite: `changes`). */
  readonly affected?: number | null;
}

/** A TypeORM `QueryRunner`: the one connection a transaction runs on. */
export interface TypeormQueryRunnerLike {
  /** True between `startTransaction()` and `commitTransaction()` / `rollbackTransaction()`. */
  readonly isTransactionActive: boolean;
  /** True once the runner gave its connection back (`release()`): it runs nothing more. */
  readonly isReleased: boolean;
  /** Runs one statement with bound parameters; `true` asks for the structured result. */
  query(query: string, parameters: unknown[], useStructuredResult: true): Promise<TypeormQueryResultLike>;
}

/** A TypeORM `EntityManager`: the one of a transaction carries the transaction's `queryRunner`. */
export interface TypeormEntityManagerLike {
  /** Set on the manager of `dataSource.transaction(…)` and on `queryRunner.manager`; unset on `dataSource.manager`. */
  readonly queryRunner?: TypeormQueryRunnerLike;
}

/** What the TypeORM entry accepts: a transaction's `EntityManager`, or a `QueryRunner` in a transaction. */
export type TypeormTransactionLike = TypeormEntityManagerLike | TypeormQueryRunnerLike;

/** TypeORM's database types, by the SQL dialect payonce writes for each. */
const DIALECT_BY_TYPE: Readonly<Record<string, SqlDialectName>> = {
  postgres: 'postgres',
  mysql: 'mysql',
  mariadb: 'mysql',
  'better-sqlite3': 'sqlite',
  sqlite: 'sqlite',
};

const ACCEPTED =
  'must be the EntityManager of dataSource.transaction(async (manager) => …) or a QueryRunner after ' +
  'startTransaction() (TypeORM, on postgres, mysql, mariadb or better-sqlite3)';

type Loose = Record<string, unknown> | null;

/** The data source behind a runner or manager: `dataSource` on TypeORM 1.x, `connection` on 0.3.x. */
function dataSourceOf(holder: Loose): TypeormDataSourceLike | undefined {
  const source = (holder?.dataSource ?? holder?.connection) as Partial<TypeormDataSourceLike> | undefined;
  return typeof source?.options?.type === 'string' ? (source as TypeormDataSourceLike) : undefined;
}

/** The dialect of TypeORM database `type`. @throws {InvalidOption} a type payonce has no store for. */
function dialectOf(type: string, option: string): SqlDialectName {
  const dialect = DIALECT_BY_TYPE[type];
  if (dialect === undefined) {
    throw new InvalidOption(
      option,
      `is a TypeORM "${type}" data source; payonce joins postgres, mysql, mariadb and better-sqlite3`,
    );
  }
  return dialect;
}

/** True for a `QueryRunner` (it runs statements itself and knows whether its transaction is open). */
function isQueryRunner(value: Loose): value is Loose & TypeormQueryRunnerLike {
  return typeof value?.query === 'function' && typeof value.isTransactionActive === 'boolean' && 'isReleased' in value;
}

/**
 * The query runner of `tx` and the dialect of its database.
 * @throws {InvalidOption} `tx` is a `DataSource`, the root manager, a released runner, a runner or manager outside a
 * transaction, or anything else.
 */
function transactionOf(tx: TypeormTransactionLike): {
  runner: TypeormQueryRunnerLike;
  dialect: SqlDialectName;
  source: TypeormDataSourceLike;
} {
  const candidate = (typeof tx === 'object' ? tx : null) as Loose;
  const runner = isQueryRunner(candidate) ? candidate : (candidate?.queryRunner as Loose);
  if (!isQueryRunner(runner)) {
    const what =
      typeof candidate?.createQueryRunner === 'function'
        ? 'a TypeORM DataSource, not a transaction; '
        : typeof candidate?.getRepository === 'function' && typeof candidate.transaction === 'function'
          ? 'an EntityManager outside a transaction (dataSource.manager); '
          : '';
    throw new InvalidOption('tx', what === '' ? ACCEPTED : `is ${what}${ACCEPTED}`);
  }
  if (runner.isReleased || !runner.isTransactionActive) {
    throw new InvalidOption(
      'tx',
      `has no open transaction (${runner.isReleased ? 'released' : 'not started'}); ${ACCEPTED}`,
    );
  }
  const source = dataSourceOf(runner) ?? dataSourceOf(candidate);
  if (source === undefined) throw new InvalidOption('tx', ACCEPTED);
  return { runner, dialect: dialectOf(source.options.type, 'tx'), source };
}

/**
 * The executor seam over `tx`, a TypeORM transaction (its `EntityManager` or `QueryRunner`): payonce's statements
 * run as `queryRunner.query(sql, parameters, true)` on the transaction's connection, and TypeORM's errors
 * (`QueryFailedError`, carrying the driver's `code` / `errno`) propagate as they are. The dialect comes from the data
 * source's `options.type`. A `DataSource` or its root `manager` is refused: their statements run outside the
 * transaction (each may take another pooled connection).
 * @throws {InvalidOption} `tx` is not in an open transaction, not a TypeORM manager or runner, or its database type
 * is not postgres, mysql, mariadb or better-sqlite3.
 */
export function typeormExecutor(tx: TypeormTransactionLike): SqlExecutor {
  const { runner, dialect, source } = transactionOf(tx);
  return {
    dialect,
    // The runner says itself whether its transaction is open: the database is checked once per data source.
    isOpen: () => runner.isTransactionActive && !runner.isReleased,
    origin: source,
    async execute(sql, parameters) {
      const result = await runner.query(sql, [...parameters], true);
      const rows = result.records ?? [];
      const affected = result.affected;
      return typeof affected === 'number' ? { rows, numAffectedRows: BigInt(affected) } : { rows };
    },
  };
}

/**
 * Runs `work` with `trx`, the TypeORM transaction `tx` as a Kysely `Transaction` typed for `store`'s tables, for
 * payonce's one-commit calls that take one (`outbox.enqueueOnce(trx, …)`, the payments' transitions). `store` is
 * the payonce store on the same database.
 * @throws {InvalidOption} `tx` is not a TypeORM transaction (see `typeormExecutor`), or `store` is not a SQL store
 * of its dialect.
 * @throws whatever `work` throws.
 */
export async function withTypeormTransaction<S extends JoinableStore, T>(
  store: S,
  tx: TypeormTransactionLike,
  work: (trx: TransactionOf<S>) => Promise<T>,
): Promise<T> {
  return await withJoined(store, typeormExecutor(tx), work);
}

/**
 * `guard.runInTransaction` in the application's TypeORM transaction `tx` (the `EntityManager` of
 * `dataSource.transaction`, or a `QueryRunner` after `startTransaction()`): the receipt, `handler`'s writes and any
 * outbox row enqueued with its third argument commit together when the transaction commits, or not at all (a throw
 * reaches the caller; `dataSource.transaction` rolls back). `handler` gets `tx` itself, typed as the caller's. A
 * duplicate inside a transaction never waits for an in-flight claim (see `runJoined`): it replays, or gets
 * `RequestInProgress` (HTTP 409).
 * @throws {InvalidOption} `tx` is not a TypeORM transaction, or the guard's store is not a SQL store of its dialect.
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws.
 * @see docs/your-stack.md "TypeORM".
 * @example
 * await dataSource.transaction((manager) =>
 *   runInTypeormTransaction(guard, manager, new RequestKey('stripe', event.id), async (manager) => {
 *     await manager.update(Order, { id: orderId }, { paid: true });
 *   }),
 * );
 */
export async function runInTypeormTransaction<S extends JoinableStore, X extends TypeormTransactionLike>(
  guard: IdempotencyGuard<S>,
  tx: X,
  key: RequestKey,
  handler: JoinedHandler<X, TransactionOf<S>>,
  options: RunOptions = {},
): Promise<Outcome> {
  return await runJoined(guard, typeormExecutor(tx), tx, key, handler, options);
}

/** A TypeORM `DataSource` (the part payonce uses): it opens transactions. */
export interface TypeormTransactionalDataSource<M extends TypeormEntityManagerLike> extends TypeormDataSourceLike {
  /** The data source's root manager (its type is the type of every transaction's manager). */
  readonly manager: M;
  /** Runs `work` in one transaction on one connection: commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (manager: M) => Promise<T>): Promise<T>;
}

/**
 * Transactions of a TypeORM `DataSource` for the parts of payonce that open one themselves (a one-commit webhook
 * endpoint, an Idempotency-Key route): each is `dataSource.transaction(async (manager) => …)`, and the handler gets
 * that `manager`. On better-sqlite3, TypeORM runs every transaction of a data source on its ONE connection, and a
 * transaction started while another is open becomes a savepoint inside it; so this opener runs its transactions one
 * after another on that database (in the order they were asked for).
 * @throws {InvalidOption} `dataSource` is not a TypeORM `DataSource` of postgres, mysql, mariadb or better-sqlite3.
 * @example createWebhookIntake({ guard, endpoints: { stripe: { transaction: typeormTransactions(dataSource), … } } })
 */
export function typeormTransactions<M extends TypeormEntityManagerLike>(
  dataSource: TypeormTransactionalDataSource<M>,
): StackTransactions<M> {
  const candidate = (typeof dataSource === 'object' ? dataSource : null) as Loose;
  if (typeof candidate?.transaction !== 'function' || typeof candidate.createQueryRunner !== 'function') {
    throw new InvalidOption('dataSource', 'must be a TypeORM DataSource (new DataSource({ type, … }))');
  }
  const type = String((candidate.options as Partial<TypeormDataSourceLike['options']> | undefined)?.type);
  const dialect = dialectOf(type, 'dataSource');
  const open = <T>(work: (tx: M, executor: SqlExecutor) => Promise<T>) =>
    dataSource.transaction((manager) => work(manager, typeormExecutor(manager)));
  let last: Promise<unknown> = Promise.resolve();
  return {
    dialect,
    stack: `typeorm (${type})`,
    transaction(work) {
      if (dialect !== 'sqlite') return open(work);
      const next = last.then(() => open(work));
      last = next.catch(() => {});
      return next;
    },
  };
}

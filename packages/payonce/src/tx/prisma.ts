/**
 * `payonce/tx/prisma`: payonce's one-commit mode in a Prisma 7 interactive transaction (the `tx` of
 * `prisma.$transaction(async (tx) => …)`) with a driver adapter: `@prisma/adapter-pg` (PostgreSQL),
 * `@prisma/adapter-mariadb` (MySQL/MariaDB) or `@prisma/adapter-better-sqlite3` (SQLite). Typed by shape: this entry
 * imports nothing of Prisma. Prisma's own queries stay Prisma's (a relation `include` keeps its models): only
 * payonce's statements go through the executor, as `tx.$queryRawUnsafe` / `tx.$executeRawUnsafe` with bound values.
 * @see docs/your-stack.md "Prisma".
 */
import { InvalidOption } from '../core/errors.js';
import type { RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { TransactionOf } from '../core/store.js';
import type { SqlExecutor } from '../stores/sql/joined-transaction.js';
import { SQL_DIALECT_NAMES, type SqlDialectName } from '../stores/sql/sql-dialect.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { unwrapPrismaError } from './prisma-driver-error.js';
import { answersRows } from './prisma-statement.js';
import { type JoinableStore, type JoinedHandler, runJoined, withJoined } from './run-joined.js';

export type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
export type { SqlDialectName } from '../stores/sql/sql-dialect.js';
export type { StackTransactions } from '../stores/sql/stack-transactions.js';
export { PrismaDriverError } from './prisma-driver-error.js';
export type { JoinableStore, JoinedHandler } from './run-joined.js';

/**
 * A Prisma interactive-transaction client: the `tx` of `prisma.$transaction(async (tx) => …)` (its raw calls are
 * what payonce uses). Prisma's generated `Prisma.TransactionClient` fits it.
 */
export interface PrismaTransactionLike {
  /** Runs one statement with bound values and answers its rows (Prisma maps the column types). */
  $queryRawUnsafe(query: string, ...values: unknown[]): PromiseLike<unknown>;
  /** Runs one statement with bound values and answers the number of rows it changed. */
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
}

/** Prisma's schema providers payonce runs on, and the payonce dialect of each. */
const DIALECT_OF_PROVIDER: Readonly<Record<string, SqlDialectName>> = {
  postgresql: 'postgres',
  mysql: 'mysql',
  sqlite: 'sqlite',
};

const ACCEPTED = 'must be the tx of a Prisma interactive transaction: prisma.$transaction(async (tx) => …)';

/**
 * The dialect of the client's schema: its `provider` (`postgresql`, `mysql`, `sqlite`), which Prisma 7 keeps on every
 * client and transaction client as `_activeProvider` (no public accessor exists). `dialect`, when given, must agree.
 * @throws {InvalidOption} neither says a dialect payonce supports, or they disagree.
 */
function dialectOf(tx: object, dialect: SqlDialectName | undefined): SqlDialectName {
  if (dialect !== undefined && !SQL_DIALECT_NAMES.includes(dialect)) {
    throw new InvalidOption('dialect', 'must be "postgres", "mysql" or "sqlite"');
  }
  const provider = (tx as { _activeProvider?: unknown })._activeProvider;
  if (typeof provider !== 'string') {
    if (dialect !== undefined) return dialect;
    throw new InvalidOption('dialect', 'is required: this Prisma client does not say its provider');
  }
  const detected = DIALECT_OF_PROVIDER[provider];
  if (detected === undefined) {
    throw new InvalidOption(
      'tx',
      `is a Prisma client of provider ${provider}; payonce runs on postgresql, mysql, sqlite`,
    );
  }
  if (dialect !== undefined && dialect !== detected) {
    throw new InvalidOption('dialect', `is ${dialect}, but the Prisma client's provider is ${provider}`);
  }
  return detected;
}

/** The rows `$queryRawUnsafe` answered (always an array of objects keyed by column name). */
function rowsOf(answer: unknown): readonly unknown[] {
  if (!Array.isArray(answer)) throw new Error('Prisma $queryRawUnsafe answered no row array');
  return answer;
}

/**
 * The executor seam over `tx`, a Prisma 7 interactive-transaction client: a statement that answers rows (SELECT, or
 * one with `RETURNING`) runs as `tx.$queryRawUnsafe(sql, ...values)`, any other as `tx.$executeRawUnsafe` (its count
 * is `numAffectedRows`). Values are bound by the driver adapter as given (payonce binds text, numbers, `null` and
 * bytes), and rows reach payonce as Prisma maps them: BIGINT → `bigint`, bytes → `Uint8Array`, text → string, which
 * payonce's row readers take as they take better-sqlite3's and mysql2's (payonce's tables hold no numeric, JSON or
 * timestamp column, so Prisma's `Decimal`, parsed JSON and `Date` never reach them). A database error of one of these
 * statements is thrown as {@link PrismaDriverError} with the database's own code (Prisma's error as its `cause`), so
 * that payonce tells a duplicate key on MySQL from a failure. The root `PrismaClient` is refused: its statements would
 * run outside the transaction (it has `$connect`; a transaction client has not).
 * @param dialect `postgres`, `mysql` or `sqlite`; read from the client's schema provider when omitted (must agree).
 * @throws {InvalidOption} `tx` is a `PrismaClient` rather than its transaction client, is not a Prisma client, is of
 *   a provider payonce does not run on, or `dialect` disagrees with it.
 */
export function prismaExecutor(tx: PrismaTransactionLike, dialect?: SqlDialectName): SqlExecutor {
  const candidate = tx as Partial<PrismaTransactionLike> & { $connect?: unknown };
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.$queryRawUnsafe !== 'function' ||
    typeof candidate.$executeRawUnsafe !== 'function'
  ) {
    throw new InvalidOption('tx', ACCEPTED);
  }
  if (typeof candidate.$connect === 'function') {
    throw new InvalidOption('tx', `is a PrismaClient, not a transaction; ${ACCEPTED}`);
  }
  const resolved = dialectOf(candidate, dialect);
  return {
    dialect: resolved,
    // Prisma refuses a statement on an interactive transaction that has ended (P2028 "Transaction already closed").
    isOpen: () => true,
    async execute(sql, parameters) {
      try {
        if (answersRows(sql)) return { rows: rowsOf(await tx.$queryRawUnsafe(sql, ...parameters)) };
        return { rows: [], numAffectedRows: BigInt(await tx.$executeRawUnsafe(sql, ...parameters)) };
      } catch (error) {
        throw unwrapPrismaError(error, resolved === 'mysql');
      }
    },
  };
}

/**
 * Runs `work` with `trx`, the Prisma interactive transaction `tx` as a Kysely `Transaction` typed for `store`'s
 * tables, for payonce's one-commit calls that take one (`outbox.enqueueOnce(trx, …)`, the payments' transitions).
 * `store` is the payonce store on the same database.
 * @throws {InvalidOption} `tx` is not a Prisma transaction client (see `prismaExecutor`), or `store` is not a SQL store
 *   of its dialect.
 * @throws whatever `work` throws.
 * @example
 * await prisma.$transaction((tx) =>
 *   withPrismaTransaction(store, tx, (trx) => outbox.enqueueOnce(trx, 'order.fulfil', `order:${id}`, { id })),
 * );
 */
export async function withPrismaTransaction<S extends JoinableStore, T>(
  store: S,
  tx: PrismaTransactionLike,
  work: (trx: TransactionOf<S>) => Promise<T>,
): Promise<T> {
  return await withJoined(store, prismaExecutor(tx), work);
}

/**
 * `guard.runInTransaction` in the application's Prisma interactive transaction `tx`: the receipt, `handler`'s Prisma
 * writes and any outbox row enqueued with its third argument commit together when `$transaction` commits, or not at
 * all (a throw rolls the whole transaction back). `handler` gets `tx` itself, typed as the caller's. A duplicate
 * inside a transaction never waits for an in-flight claim (see `runJoined`): it replays, or gets `RequestInProgress`
 * (HTTP 409). The whole handler runs inside Prisma's interactive-transaction `timeout` (5 000 ms unless set).
 * @throws {InvalidOption} `tx` is not a Prisma transaction client, or the guard's store is not a SQL store of its
 *   dialect.
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws.
 * @see docs/your-stack.md "Prisma".
 * @example
 * await prisma.$transaction((tx) =>
 *   runInPrismaTransaction(guard, tx, new RequestKey('stripe', event.id), async (tx) => {
 *     await tx.order.update({ where: { id: orderId }, data: { paid: true } });
 *   }),
 * );
 */
export async function runInPrismaTransaction<S extends JoinableStore, X extends PrismaTransactionLike>(
  guard: IdempotencyGuard<S>,
  tx: X,
  key: RequestKey,
  handler: JoinedHandler<X, TransactionOf<S>>,
  options: RunOptions = {},
): Promise<Outcome> {
  return await runJoined(guard, prismaExecutor(tx), tx, key, handler, options);
}

/** Prisma's transaction isolation levels (SQLite has `Serializable` only). */
export type PrismaIsolationLevel = 'ReadUncommitted' | 'ReadCommitted' | 'RepeatableRead' | 'Serializable';

/** Options of the interactive transactions `prismaTransactions` opens; each is passed to `$transaction` as is. */
export interface PrismaTransactionOptions {
  /**
   * Milliseconds Prisma waits to get a connection and start the transaction.
   * @default the client's `transactionOptions.maxWait`, else Prisma's 2 000
   */
  maxWait?: number;
  /**
   * Milliseconds the whole transaction may run, the guarded handler included, before Prisma rolls it back.
   * @default the client's `transactionOptions.timeout`, else Prisma's 5 000
   */
  timeout?: number;
  /** @default the client's `transactionOptions.isolationLevel`, else the database's own default */
  isolationLevel?: PrismaIsolationLevel;
}

/** Options of `prismaTransactions`: the interactive transactions' own, and the dialect. */
export interface PrismaTransactionsOptions extends PrismaTransactionOptions {
  /**
   * `postgres`, `mysql` or `sqlite`: only for a client that does not tell its schema provider (Prisma 7 does); when
   * given, it must agree with the provider.
   * @default read from the client's schema provider
   */
  dialect?: SqlDialectName;
}

/** A `PrismaClient` (the part payonce uses): it opens interactive transactions. */
export interface PrismaClientLike<X extends PrismaTransactionLike> {
  /** Runs `work` in one interactive transaction: commits when it resolves, rolls back when it throws. */
  $transaction<R>(work: (tx: X) => Promise<R>, options?: PrismaTransactionOptions): PromiseLike<R>;
  /** Connects the client (a transaction client has no `$connect`: that is how the two are told apart). */
  $connect(): PromiseLike<void>;
}

const LEVELS: readonly PrismaIsolationLevel[] = ['ReadUncommitted', 'ReadCommitted', 'RepeatableRead', 'Serializable'];

/** `options` checked once: positive integer milliseconds, a known isolation level; unset ones left out. */
function checkOptions(options: PrismaTransactionOptions): PrismaTransactionOptions {
  const checked: PrismaTransactionOptions = {};
  for (const name of ['maxWait', 'timeout'] as const) {
    const value = options[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0) throw new InvalidOption(name, 'must be a positive integer (ms)');
    checked[name] = value;
  }
  if (options.isolationLevel !== undefined) {
    if (!LEVELS.includes(options.isolationLevel)) {
      throw new InvalidOption('isolationLevel', `must be one of ${LEVELS.join(', ')}`);
    }
    checked.isolationLevel = options.isolationLevel;
  }
  return Object.freeze(checked);
}

/**
 * Transactions of a `PrismaClient` (with a driver adapter) for the parts of payonce that open one themselves (a
 * one-commit webhook endpoint, an Idempotency-Key route): each is `prisma.$transaction(async (tx) => …, options)`,
 * and the handler gets that `tx`. The dialect comes from the client's schema provider.
 *
 * Prisma rolls an interactive transaction back after `timeout` (5 000 ms by default) and gives up waiting for a
 * connection after `maxWait` (2 000 ms): the guarded handler runs inside, so set `timeout` above the handler's longest
 * run and `maxWait` above the time a connection takes under the load you expect (either here or in the client's
 * `transactionOptions`). payonce itself never waits for an in-flight duplicate inside the transaction; on PostgreSQL
 * and MySQL a duplicate's claim waits only on the database's row lock of a copy that has not committed yet.
 * @throws {InvalidOption} `prisma` is not a `PrismaClient` (a transaction client included), its provider is not
 *   PostgreSQL, MySQL or SQLite (or `dialect` disagrees with it), or an option is out of range.
 * @example createWebhookIntake({ guard, endpoints: { stripe: { transaction: prismaTransactions(prisma), … } } })
 */
export function prismaTransactions<X extends PrismaTransactionLike>(
  prisma: PrismaClientLike<X>,
  options: PrismaTransactionsOptions = {},
): StackTransactions<X> {
  const candidate = prisma as Partial<PrismaClientLike<X>> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.$transaction !== 'function' ||
    typeof candidate.$connect !== 'function'
  ) {
    throw new InvalidOption('prisma', 'must be a PrismaClient (new PrismaClient({ adapter })), not its transaction');
  }
  const { dialect: named, ...rest } = options ?? {};
  const dialect = dialectOf(prisma, named);
  const transactionOptions = checkOptions(rest);
  return {
    dialect,
    stack: 'prisma',
    transaction: async (work) =>
      await prisma.$transaction((tx) => work(tx, prismaExecutor(tx, dialect)), { ...transactionOptions }),
  };
}

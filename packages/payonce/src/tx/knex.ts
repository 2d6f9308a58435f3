/**
 * `payonce/tx/knex`: payonce's one-commit mode in the application's Knex transaction (the `trx` of
 * `knex.transaction(async (trx) => …)`) on the `pg`, `mysql2` (MySQL, MariaDB) and `better-sqlite3` clients. Its own
 * entry, apart from the stores, so that only an application on Knex loads this code; it imports nothing of `knex`
 * (an optional peer dependency of payonce): it calls the `trx` it is given. payonce's statements run on the
 * transaction's own connection on `pg`, as `trx.raw(sql, bindings)` on the other clients; the application's own
 * queries stay Knex's.
 * @see docs/your-stack.md "Knex".
 */
import { InvalidOption } from '../core/errors.js';
import type { RunOptions } from '../core/guard-types.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { RequestKey } from '../core/request-key.js';
import type { TransactionOf } from '../core/store.js';
import type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
import type { SqlDialectName } from '../stores/sql/sql-dialect.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import type { PgTransactionClient } from './pg.js';
import { postgresResult } from './postgres-result.js';
import { type JoinableStore, type JoinedHandler, runJoined, withJoined } from './run-joined.js';

export type { SqlExecutor, SqlExecutorResult } from '../stores/sql/joined-transaction.js';
export type { StackTransactions } from '../stores/sql/stack-transactions.js';
export type { JoinableStore, JoinedHandler } from './run-joined.js';

/** The Knex client of a `knex` instance or `trx` (the part payonce reads: which driver it runs). */
export interface KnexClientLike {
  /** Knex's name of the driver: `pg`, `mysql2`, `mysql`, `better-sqlite3`, … */
  readonly driverName?: string;
  /** `true` on the client of a transaction, whose `acquireConnection` answers the transaction's one connection. */
  readonly transacting?: boolean;
  /** On a transaction's client: the connection the transaction runs on (the driver's own, a pg `Client` on `pg`). */
  acquireConnection?(): Promise<unknown>;
}

/** A Knex transaction: the `trx` of `knex.transaction(async (trx) => …)` (the part payonce uses). */
export interface KnexTransactionLike {
  /** `true` on a transaction; absent or `false` on the `knex` instance itself. */
  readonly isTransaction?: boolean;
  /** The client the transaction runs on. */
  readonly client: KnexClientLike;
  /** One raw statement with `?` positional bindings, on the transaction's connection. */
  raw(sql: string, bindings: readonly unknown[]): PromiseLike<unknown>;
  /** `true` once the transaction (or one it is nested in) has committed or rolled back. */
  isCompleted?(): boolean;
}

/** The Knex drivers payonce joins, by the dialect of their SQL. */
const DIALECT_BY_DRIVER: Readonly<Record<string, SqlDialectName>> = {
  pg: 'postgres',
  mysql2: 'mysql',
  mysql: 'mysql',
  'better-sqlite3': 'sqlite',
};

const ACCEPTED =
  'must be the trx of knex.transaction(async (trx) => …) on the pg, mysql2 or better-sqlite3 client, not the knex instance';

/**
 * A `$n` placeholder or a `?` of PostgreSQL SQL text, or a quoted literal / identifier (kept as written, so a `$1`
 * inside one is never taken for a placeholder).
 */
const POSTGRES_TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)|\?/g;

/** A `?` placeholder of MySQL / SQLite SQL text, or a quoted literal / identifier. */
const QUESTION_TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\?/g;

/** A Knex raw statement: SQL with `?` placeholders and its bindings in order. */
interface KnexRaw {
  readonly sql: string;
  readonly bindings: unknown[];
}

/**
 * PostgreSQL `text` as Knex raw SQL: each `$n` becomes `?` bound to `parameters[n - 1]` (in order of appearance; an
 * array stays ONE binding), and every other `?` (in a literal, an identifier or an operator) is escaped `\?`, which
 * Knex's PostgreSQL client turns back into `?`.
 * @throws {Error} a placeholder without a parameter (a bug of the caller, never of a payonce statement).
 */
function postgresToKnexRaw(text: string, parameters: readonly unknown[]): KnexRaw {
  const bindings: unknown[] = [];
  const sql = text.replace(POSTGRES_TOKENS, (token, position: string | undefined) => {
    if (position !== undefined) {
      const index = Number(position) - 1;
      if (index < 0 || index >= parameters.length) throw new Error(`placeholder ${token} has no parameter`);
      bindings.push(parameters[index]);
      return '?';
    }
    return token.replaceAll('?', '\\?');
  });
  return { sql, bindings };
}

/**
 * MySQL / SQLite `text` (`?` placeholders already) as Knex raw SQL. Knex reads every `?` as a placeholder, quotes or
 * not, and its MySQL and SQLite clients have no escape for a literal one: a string literal holding a `?` is therefore
 * bound as a parameter of the same text instead.
 * @throws {Error} the placeholders and `parameters` differ in number, or a quoted identifier holds a `?` (neither
 * happens with a payonce statement).
 */
function questionToKnexRaw(text: string, parameters: readonly unknown[]): KnexRaw {
  const bindings: unknown[] = [];
  let next = 0;
  const sql = text.replace(QUESTION_TOKENS, (token) => {
    if (token === '?') {
      if (next >= parameters.length) throw new Error(`placeholder ${next + 1} has no parameter`);
      bindings.push(parameters[next++]);
      return '?';
    }
    if (!token.includes('?')) return token;
    if (!token.startsWith("'")) throw new Error(`identifier ${token} holds a "?", which Knex would bind`);
    bindings.push(token.slice(1, -1).replaceAll("''", "'"));
    return '?';
  });
  if (next !== parameters.length) throw new Error(`${parameters.length} parameters for ${next} placeholders`);
  return { sql, bindings };
}

/** A pg `QueryResult` as the executor's result. */
function fromPg(answer: unknown): SqlExecutorResult {
  const result = answer as { rows: unknown[]; rowCount: number | null; command: string };
  return postgresResult(result.rows, result.command, result.rowCount);
}

/** mysql2's `[rows, fields]`, or `[ResultSetHeader, …]` for a write, as the executor's result. */
function fromMysql(answer: unknown): SqlExecutorResult {
  const [first] = answer as [unknown, unknown];
  if (Array.isArray(first)) return { rows: first };
  const header = first as { affectedRows?: number };
  return { rows: [], numAffectedRows: BigInt(header.affectedRows ?? 0) };
}

/** better-sqlite3's rows (a statement that returns rows), or its run info `{ changes }`, as the executor's result. */
function fromBetterSqlite(answer: unknown): SqlExecutorResult {
  if (Array.isArray(answer)) return { rows: answer };
  const info = answer as { changes?: number | bigint };
  return { rows: [], numAffectedRows: BigInt(info.changes ?? 0) };
}

/** The SQL dialect of a Knex client, or `undefined` for a driver payonce does not join. */
function dialectOf(client: KnexClientLike | undefined): SqlDialectName | undefined {
  const driver = client?.driverName;
  return driver === undefined ? undefined : DIALECT_BY_DRIVER[driver];
}

/** The message when a statement would run after the Knex transaction ended (it would run outside any transaction). */
const TRANSACTION_ENDED =
  'the Knex transaction has already committed or rolled back: payonce runs no statement on its connection after that';

/**
 * On `pg`, payonce's PostgreSQL text and values go to the transaction's own pg `Client` (`trx.client.acquireConnection()`,
 * which on a transaction's client answers its one connection) as `client.query({ text, values })`, as written: no
 * rewrite of `$n` to Knex's `?` and back (Knex's `positionBindings`), no Knex query builder, runner or query events
 * per statement (packages/bench/notes/stack.md). Each statement first checks `trx.isCompleted()`, so none runs on the
 * connection once the transaction has ended (Knex gives it back to the pool then).
 */
function pgConnectionExecutor(trx: KnexTransactionLike): SqlExecutor {
  let connection: Promise<PgTransactionClient> | undefined;
  const connectionOf = async (): Promise<PgTransactionClient> => {
    const lent = (await trx.client.acquireConnection?.()) as Partial<PgTransactionClient> | null | undefined;
    if (typeof lent?.query !== 'function') throw new Error('the Knex transaction lent no pg connection');
    return lent as PgTransactionClient;
  };
  return {
    dialect: 'postgres',
    async execute(text, parameters) {
      if (trx.isCompleted?.() === true) throw new Error(TRANSACTION_ENDED);
      connection ??= connectionOf();
      const result = await (await connection).query({ text, values: [...parameters] });
      return postgresResult(result.rows, result.command, result.rowCount);
    },
  };
}

/**
 * What Knex knows of `trx`'s transaction: `isOpen` from `trx.isCompleted()`, and the Knex instance's `config` (shared
 * by every transaction of one instance, whose client derives from the instance's) as the origin of its database.
 */
function transactionStateOf(trx: KnexTransactionLike): Pick<SqlExecutor, 'isOpen' | 'origin'> {
  const isCompleted = (trx as { isCompleted?: unknown }).isCompleted;
  const config = (trx.client as { config?: unknown } | undefined)?.config;
  return typeof isCompleted === 'function' && typeof config === 'object' && config !== null
    ? { isOpen: () => !isCompleted.call(trx), origin: config }
    : {};
}

/** `trx.raw(sql, bindings)` with payonce's text rewritten for Knex, the client's answer read by `read`. */
function rawExecutor(trx: KnexTransactionLike, dialect: SqlDialectName): SqlExecutor {
  const toRaw = dialect === 'postgres' ? postgresToKnexRaw : questionToKnexRaw;
  const read = dialect === 'postgres' ? fromPg : dialect === 'mysql' ? fromMysql : fromBetterSqlite;
  return {
    dialect,
    async execute(text, parameters) {
      const { sql, bindings } = toRaw(text, parameters);
      return read(await trx.raw(sql, bindings));
    },
  };
}

/**
 * The executor seam over `trx`, a Knex transaction on the `pg`, `mysql2` or `better-sqlite3` client. On `pg`
 * payonce's statements run on the transaction's own pg connection as written, `client.query({ text, values })`: no
 * rewrite of `$n` to Knex's `?` and back, not passed through Knex's `postProcessResponse`, not reported by its `query`
 * events; once `trx.isCompleted()` a statement is refused (its promise rejects) instead of running on a connection
 * the transaction no longer holds. On `mysql2` and `better-sqlite3` (and on `pg` when the transaction's client does
 * not lend its connection) they run as `trx.raw(sql, bindings)` (PostgreSQL `$n` placeholders become Knex's `?`
 * bindings, each bound in order; every other `?` escaped). Each client's answer is read as rows and a count of
 * changed rows. The `knex` instance itself (not a transaction) is refused: its statements may run on other
 * connections, outside it.
 * @throws {InvalidOption} `trx` is not a Knex transaction, or its client is none of `pg`, `mysql2`, `better-sqlite3`.
 */
export function knexExecutor(trx: KnexTransactionLike): SqlExecutor {
  const candidate = trx as Partial<KnexTransactionLike> | null;
  if (
    (typeof candidate !== 'object' && typeof candidate !== 'function') ||
    candidate === null ||
    typeof candidate.raw !== 'function' ||
    candidate.isTransaction !== true
  ) {
    throw new InvalidOption('trx', ACCEPTED);
  }
  const dialect = dialectOf(candidate.client);
  if (dialect === undefined) {
    throw new InvalidOption('trx', `runs on the Knex client ${String(candidate.client?.driverName)}; ${ACCEPTED}`);
  }
  const client = candidate.client as KnexClientLike;
  const executor =
    dialect === 'postgres' && client.transacting === true && typeof client.acquireConnection === 'function'
      ? pgConnectionExecutor(candidate as KnexTransactionLike)
      : rawExecutor(candidate as KnexTransactionLike, dialect);
  return { ...executor, ...transactionStateOf(candidate as KnexTransactionLike) };
}

/**
 * Runs `work` with `trx`, the Knex transaction `knexTrx` as a Kysely `Transaction` typed for `store`'s tables, for
 * payonce's one-commit calls that take one (`outbox.enqueueOnce(trx, …)`, the payments' transitions). `store` is the
 * payonce store on the same database.
 * @throws {InvalidOption} `knexTrx` is not a Knex transaction (see `knexExecutor`), or `store` is not a SQL store of
 * its dialect.
 * @throws whatever `work` throws (`knex.transaction` then rolls back).
 */
export async function withKnexTransaction<S extends JoinableStore, T>(
  store: S,
  knexTrx: KnexTransactionLike,
  work: (trx: TransactionOf<S>) => Promise<T>,
): Promise<T> {
  return await withJoined(store, knexExecutor(knexTrx), work);
}

/**
 * `guard.runInTransaction` in the application's Knex transaction `trx`: the receipt, `handler`'s Knex writes and any
 * outbox row enqueued with its third argument commit together when `knex.transaction` commits, or not at all (a throw
 * rolls the whole transaction back). `handler` gets `trx` itself, typed as the caller's. A duplicate inside a
 * transaction never waits for an in-flight claim (see `runJoined`): it replays, or gets `RequestInProgress` (409).
 * @throws {InvalidOption} `trx` is not a Knex transaction on a supported client, or the guard's store is not a SQL
 * store of its dialect.
 * @throws the errors of `IdempotencyGuard.runInTransaction`, and whatever `handler` throws.
 * @see docs/your-stack.md "Knex".
 * @example
 * await knex.transaction((trx) =>
 *   runInKnexTransaction(guard, trx, new RequestKey('stripe', event.id), async (trx) => {
 *     await trx('orders').where({ id: orderId }).update({ paid: true });
 *   }),
 * );
 */
export async function runInKnexTransaction<S extends JoinableStore, X extends KnexTransactionLike>(
  guard: IdempotencyGuard<S>,
  trx: X,
  key: RequestKey,
  handler: JoinedHandler<X, TransactionOf<S>>,
  options: RunOptions = {},
): Promise<Outcome> {
  return await runJoined(guard, knexExecutor(trx), trx, key, handler, options);
}

/** A `knex` instance (the part payonce uses): it opens transactions. */
export interface KnexLike<X extends KnexTransactionLike> {
  /** `true` on a transaction, which cannot open the transactions payonce asks for here. */
  readonly isTransaction?: boolean;
  /** The client the instance runs on. */
  readonly client: KnexClientLike;
  /** Runs `work` in one transaction: commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (trx: X) => Promise<T>): Promise<T>;
}

/**
 * Transactions of a `knex` instance (`pg`, `mysql2` or `better-sqlite3` client) for the parts of payonce that open
 * one themselves (a one-commit webhook endpoint, an Idempotency-Key route): each is
 * `knex.transaction(async (trx) => …)`, and the handler gets that `trx`. On `better-sqlite3` Knex keeps one
 * connection, so its transactions run one after another.
 * @throws {InvalidOption} `knex` is not a `knex` instance on a supported client, or is a transaction.
 */
export function knexTransactions<X extends KnexTransactionLike>(knex: KnexLike<X>): StackTransactions<X> {
  const accepted = 'must be a knex instance (knex({ client: "pg" | "mysql2" | "better-sqlite3", … })), not a trx';
  const candidate = knex as Partial<KnexLike<X>> | null;
  if (
    (typeof candidate !== 'object' && typeof candidate !== 'function') ||
    candidate === null ||
    typeof candidate.transaction !== 'function' ||
    candidate.isTransaction === true
  ) {
    throw new InvalidOption('knex', accepted);
  }
  const dialect = dialectOf(candidate.client);
  if (dialect === undefined) throw new InvalidOption('knex', accepted);
  return {
    dialect,
    stack: `knex (${String(candidate.client?.driverName)})`,
    transaction: (work) => knex.transaction((trx) => work(trx, knexExecutor(trx))),
  };
}

import type {
  CompiledQuery,
  DatabaseConnection,
  Kysely,
  QueryExecutor,
  QueryResult,
  Transaction,
  TransactionBuilder,
} from 'kysely';
import { isCombinableWrite } from './combined-writes.js';
import { type GatheredWrite, heldWritesOf, sendWrites } from './held-writes.js';

/**
 * The Kysely transactions whose callback is running inside {@link withDirectStatements}, by executor (which lives
 * as long as the transaction), with their connection once the first statement took it (`null` before).
 */
const live = new WeakMap<QueryExecutor, DatabaseConnection | null>();

/** The executors of the transactions payonce opened itself (`SqlStore.transaction`, the outbox's `transaction`). */
const own = new WeakSet<QueryExecutor>();

/**
 * Runs `work` in the transaction `builder` opens, as payonce opens its own (`SqlStore.transaction`, the outbox's
 * `transaction`): marked as payonce's own for as long as it lives — {@link isOwnTransaction} then knows that no other
 * Kysely object than `trx` (and views lent of it, which answer its executor) runs on its connection unless made from
 * it with a plugin (a new executor, not marked) — and with its fixed statements sent straight to its connection
 * ({@link withDirectStatements}).
 */
export function inOwnTransaction<DB, T>(
  builder: TransactionBuilder<DB>,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  return builder.execute((trx) => {
    own.add(trx.getExecutor());
    return withDirectStatements(trx, () => work(trx));
  });
}

/** True when `db` is a transaction payonce opened itself ({@link inOwnTransaction}), seen through this very executor. */
export function isOwnTransaction<DB>(db: Kysely<DB>): boolean {
  return db.isTransaction && own.has(db.getExecutor());
}

/**
 * Runs `work` (the callback of a Kysely transaction on `trx`) with the fixed statements sent through
 * {@link executeCompiled} going straight to the transaction's connection while `work` runs. Not when `trx`'s
 * executor has plugins (they may transform queries and results). Once `work` settles, a statement on `trx` goes
 * through Kysely again, which refuses it after commit or rollback.
 */
export async function withDirectStatements<DB, T>(trx: Kysely<DB>, work: () => Promise<T>): Promise<T> {
  const executor = trx.getExecutor();
  if (executor.plugins.length > 0 || live.has(executor)) return work();
  live.set(executor, null);
  try {
    return await work();
  } finally {
    live.delete(executor);
  }
}

/**
 * Executes `query` on `db`. Inside a transaction whose callback runs in {@link withDirectStatements}, it goes
 * straight to the transaction's one connection (taken once per transaction from Kysely's own provider): the same
 * SQL on the same connection, the driver's result as Kysely returns it, without about a dozen promises per statement
 * of Kysely's executor, connection provider and result transform (packages/bench/notes/service.md). The drivers run the
 * statements sent on one connection in order, as Kysely's provider would. Anywhere else it is `db.executeQuery`.
 */
export function executeCompiled<DB, R>(db: Kysely<DB>, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  if (!db.isTransaction) return db.executeQuery(query);
  const executor = db.getExecutor();
  const connection = live.get(executor);
  if (connection === undefined) return db.executeQuery(query);
  if (connection !== null) {
    const gathered = gathering.get(executor);
    if (gathered !== undefined) {
      if (isCombinableWrite(query)) return gathered.add(query) as Promise<QueryResult<R>>;
      gathered.send(connection); // what was gathered before goes first, in the order it was issued
    }
    return connection.executeQuery(query);
  }
  return onLiveConnection(executor, (taken) => taken.executeQuery(query));
}

/**
 * `use` of the one connection of the transaction whose executor is `executor`, taken from Kysely's own provider (in
 * its turn) and kept for the transaction's later statements (`executeCompiled`, `together`).
 */
function onLiveConnection<T>(executor: QueryExecutor, use: (taken: DatabaseConnection) => Promise<T>): Promise<T> {
  return executor.provideConnection((taken) => {
    if (live.has(executor)) live.set(executor, taken);
    return use(taken);
  });
}

/** The writes {@link together} is gathering on one transaction. */
class Gathering {
  private writes: GatheredWrite[] = [];

  add(query: CompiledQuery): Promise<QueryResult<never>> {
    return new Promise((resolve, reject) => this.writes.push({ query, resolve, reject }));
  }

  /** What was gathered, in the order it was issued; the list is emptied. */
  take(): GatheredWrite[] {
    const writes = this.writes;
    this.writes = [];
    return writes;
  }

  /** Sends what was gathered (one statement; a lone write as it is) and empties the list. */
  send(connection: DatabaseConnection): void {
    sendWrites((query) => connection.executeQuery(query), this.take());
  }
}

/** The transactions whose writes {@link together} is gathering right now, by executor. */
const gathering = new WeakMap<QueryExecutor, Gathering>();

/**
 * Makes `writes` — independent writes on `trx`, each issuing its statements through {@link executeCompiled} — with as
 * few round trips as the dialect allows. On PostgreSQL (with the transaction's direct connection taken) they are all
 * started at once and the fixed writes they issue before their first pause (`insert`, `update`, `delete`) go as ONE
 * statement (`combineWrites`), each answered with the rows it touched; whatever they issue afterwards follows in
 * order, and a failed write fails every other (PostgreSQL aborts the transaction anyway). Everywhere else they run
 * one after another, each awaited before the next starts: on MySQL/MariaDB a deadlock ends the whole transaction,
 * and a statement already queued behind it would then run and commit on its own. The writes must be independent of
 * each other (one snapshot: none sees another's rows) and must not touch the same row. Used by the payment
 * transitions (docs/design.md §11 "Fewer round trips"). Called by a write another `together` is starting (a journal
 * row with its refund amount), its writes are started at once and join that one's statement.
 * `hold`: in a group-commit transaction that holds its writes (`HeldWrites`, PostgreSQL), they are not sent
 * now but before the next statement on the connection or at the end, and this resolves at once. Only for writes that
 * send nothing after their first statement is answered: a statement sent later would go after the caller's work
 * ended (through a fenced view it fails, and the batch runs again without holding).
 */
export async function together<DB>(
  trx: Kysely<DB>,
  dialect: string,
  writes: readonly (() => Promise<unknown>)[],
  options: { readonly hold?: boolean } = {},
): Promise<void> {
  const executor = trx.isTransaction ? trx.getExecutor() : null;
  if (executor !== null && dialect === 'postgres' && gathering.has(executor)) {
    // Started by a write another `together` is starting: their statements join that one's.
    await Promise.all(writes.map((write) => write()));
    return;
  }
  let connection = executor === null ? undefined : live.get(executor);
  const held =
    executor === null || dialect !== 'postgres' || options.hold !== true ? undefined : heldWritesOf(executor);
  if (connection === null && executor !== null && dialect === 'postgres' && (writes.length > 1 || held)) {
    // Nothing went straight to the connection yet (the transaction's statements so far went through Kysely): take it.
    connection = await onLiveConnection(executor, async (taken) => taken);
  }
  if (executor === null || !connection || (held === undefined && (dialect !== 'postgres' || writes.length < 2))) {
    for (const write of writes) await write();
    return;
  }
  const gathered = new Gathering();
  gathering.set(executor, gathered);
  let started: Promise<unknown[]>;
  try {
    started = Promise.all(writes.map((write) => write()));
  } finally {
    gathering.delete(executor);
    // In a group transaction that holds its writes, they wait for the next statement on the connection or its end.
    if (held === undefined) gathered.send(connection);
    else held.hold(connection, gathered.take());
  }
  if (held === undefined) await started;
  else held.track(started);
}

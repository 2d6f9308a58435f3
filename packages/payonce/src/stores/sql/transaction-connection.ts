import type { CompiledQuery, DatabaseConnection, Kysely, QueryExecutor, QueryResult } from 'kysely';

/**
 * The Kysely transactions whose callback is running inside {@link withDirectStatements}, by executor (which lives
 * as long as the transaction), with their connection once the first statement took it (`null` before).
 */
const live = new WeakMap<QueryExecutor, DatabaseConnection | null>();

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
  if (connection !== null) return connection.executeQuery(query);
  return executor.provideConnection((taken) => {
    if (live.has(executor)) live.set(executor, taken);
    return taken.executeQuery(query);
  });
}

import type { CompiledQuery, DatabaseConnection, Kysely, QueryExecutor, QueryResult } from 'kysely';

/** The connection of each open Kysely transaction (keyed by its executor, which lives as long as the transaction). */
const connections = new WeakMap<QueryExecutor, DatabaseConnection>();

/**
 * Executes `query` on `db`. Inside a Kysely transaction whose executor has no plugins, it goes straight to the
 * transaction's one connection (taken once per transaction from Kysely's own provider): the same SQL on the same
 * connection, with the driver's result as Kysely returns it, minus about a dozen promises per statement of Kysely's
 * executor, connection provider and result transform (bench/notes/service.md). The drivers queue statements sent on
 * one connection in order, as Kysely's provider would. Anywhere else (a pool, or plugins that could transform
 * results) it is `db.executeQuery(query)`.
 */
export function executeCompiled<DB, R>(db: Kysely<DB>, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  if (!db.isTransaction) return db.executeQuery(query);
  const executor = db.getExecutor();
  if (executor.plugins.length > 0) return db.executeQuery(query);
  const connection = connections.get(executor);
  if (connection !== undefined) return connection.executeQuery(query);
  return executor.provideConnection((taken) => {
    connections.set(executor, taken);
    return taken.executeQuery(query);
  });
}

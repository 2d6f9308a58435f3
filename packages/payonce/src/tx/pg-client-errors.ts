/** A node-postgres client's event method (the part payonce uses). */
interface PgEventClient {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Clients that already carry payonce's `error` listener (one listener per client, for its whole life). */
const held = new WeakSet<object>();

/** The listener: the error itself reaches the caller through the statement it fails; this only keeps the process alive. */
const keepAlive = (): void => {};

/**
 * Runs `work` after making sure `client`, a node-postgres client lent by a pool to a transaction that another
 * library (Drizzle) opened, has an `error` listener. A lent client with none crashes the process when the server
 * ends its connection (failover, `pg_terminate_backend`); with one, the statement in flight rejects instead and the
 * transaction fails like any other. The listener stays on the client for its whole life, once per client: the
 * socket's own error (ECONNRESET) may arrive after `work` returned, while the library still rolls back and before
 * the pool takes the client back, and a listener removed then would leave that window open. `work` runs as is when
 * `client` is not a node-postgres client.
 * @see node-postgres docs, "Client" (events: error) and "Pool" (checked-out clients have no idle listener).
 */
export async function withClientErrorsHeld<T>(client: unknown, work: () => Promise<T>): Promise<T> {
  holdClientErrors(client);
  return await work();
}

/**
 * Gives `client` (a node-postgres client) payonce's `error` listener for the rest of its life, once per client, so
 * a socket error arriving after the client was given back to be destroyed cannot crash the process. Does nothing
 * for an object with no `on` method.
 */
export function holdClientErrors(client: unknown): void {
  const candidate = client as Partial<PgEventClient> | null;
  if (candidate === null || typeof candidate !== 'object' || typeof candidate.on !== 'function') return;
  if (held.has(candidate)) return;
  (candidate as PgEventClient).on('error', keepAlive);
  held.add(candidate);
}

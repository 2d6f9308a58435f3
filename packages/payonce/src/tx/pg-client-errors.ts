/** A node-postgres client's event methods (the part payonce uses). */
interface PgEventClient {
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Runs `work` while listening for the `error` event of `client`, a node-postgres client lent by a pool to a
 * transaction that another library (Drizzle) opened. A lent client with no listener crashes the process when the
 * server ends its connection (failover, `pg_terminate_backend`); with one, the statement in flight rejects instead
 * and the transaction fails like any other. `work` runs as is when `client` is not a node-postgres client.
 * @see node-postgres docs, "Client" (events: error).
 */
export async function withClientErrorsHeld<T>(client: unknown, work: () => Promise<T>): Promise<T> {
  const candidate = client as Partial<PgEventClient> | null;
  if (typeof candidate?.on !== 'function' || typeof candidate.off !== 'function') return await work();
  const events = candidate as PgEventClient;
  // The error itself reaches the caller through the statement it fails; the listener only keeps the process alive.
  const hold = () => {};
  events.on('error', hold);
  try {
    return await work();
  } finally {
    events.off('error', hold);
  }
}

/** A node-postgres `Client` / `PoolClient` of pg ≥ 8.16, which reports the server's transaction status. */
interface PgStatusClient {
  getTransactionStatus(): string | null;
}

/**
 * Whether node-postgres' connection `client` is inside a transaction block, from the status the server sends with
 * every ReadyForQuery message (`I` idle, `T` in a transaction, `E` in a failed one; pg ≥ 8.16
 * `client.getTransactionStatus()`): `false` for idle, `true` for `T`/`E`, `undefined` when the client cannot tell
 * (an older pg, no status yet).
 * @see PostgreSQL protocol, "ReadyForQuery" (transaction status indicator).
 */
export function pgTransactionOpen(client: unknown): () => boolean | undefined {
  const candidate = client as Partial<PgStatusClient> | null;
  if (typeof candidate?.getTransactionStatus !== 'function') return () => undefined;
  const statusClient = candidate as PgStatusClient;
  return () => {
    const status = statusClient.getTransactionStatus();
    return status === 'I' ? false : status === 'T' || status === 'E' ? true : undefined;
  };
}

/** The part of a client lent by a `pg` pool that Kysely's PostgreSQL driver uses. */
export interface LentPgClient {
  query(...args: never[]): unknown;
  release(discard?: boolean | Error): void;
}

const READ_TIMEOUT = 'Query read timeout';

function timedOut(error: unknown): boolean {
  return error instanceof Error && error.message === READ_TIMEOUT;
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * A view of a client lent by a `pg` pool that the pool destroys, instead of lending it again, once one of its
 * statements failed with `Query read timeout` (`pg`'s `query_timeout`). `pg` stops waiting for such a statement but
 * leaves it active on the connection, so every later statement on that client queues behind an answer that may never
 * come: a database host that froze and came back would keep failing every statement sent on it. Kysely releases a
 * connection used outside a transaction without an error, so without this view `pg-pool` would lend it again, to the
 * next caller, for as long as the connection stays open (measured: 15 of 15 statements after the database answered
 * again). Every other call goes to `client` unchanged.
 */
export function discardWhenTimedOut<C extends LentPgClient>(client: C): C {
  let poisoned = false;
  const view = Object.create(client) as C;
  view.query = ((...args: never[]) => {
    const result = client.query(...args);
    if (!isPromise(result)) return result; // a cursor (Kysely's streamQuery): its reads report their own errors
    return result.catch((error: unknown) => {
      if (timedOut(error)) poisoned = true;
      throw error;
    });
  }) as C['query'];
  view.release = (discard) => client.release(poisoned ? true : discard);
  return view;
}

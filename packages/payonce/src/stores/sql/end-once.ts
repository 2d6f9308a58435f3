/**
 * `end` made idempotent: the first call runs it, every later call (and a concurrent one) gets the same promise.
 * For a pool that two owners may end: the store's `close()` and its Kysely instance's `destroy()`. Kysely ends the
 * pool only if it ever acquired a connection, and a store whose statements all ran straight on the pool
 * (`runStatementsDirectly`) may never have let it; the drivers refuse a second `end` (pg: "Called end on pool more
 * than once", mysql2: a closed-state error), so each owner calls this instead.
 */
export function endOnce(end: () => Promise<void>): () => Promise<void> {
  let ending: Promise<void> | null = null;
  return () => {
    ending ??= end();
    return ending;
  };
}

/** The end of the queue of transactions of each SQLite connection (a better-sqlite3 `Database`). */
const queues = new WeakMap<object, Promise<void>>();

/**
 * Runs `work` when every transaction queued before it on `connection` has ended, and holds the queue until `work`
 * settles: SQLite has one transaction per connection and no nested `BEGIN`, so payonce's openers of one connection
 * (`betterSqlite3Transactions(db)`, `drizzleTransactions(db)` on better-sqlite3, however many are made) take turns
 * in the order asked. A `work` that throws frees the queue like one that resolves. Keyed by the better-sqlite3
 * `Database` itself (a Drizzle database's `$client`), so every opener of that connection shares one queue.
 * @throws whatever `work` throws.
 */
export async function onSqliteConnection<T>(connection: object, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(connection) ?? Promise.resolve();
  let done = () => {};
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  queues.set(
    connection,
    previous.then(() => mine),
  );
  await previous;
  try {
    return await work();
  } finally {
    done();
  }
}

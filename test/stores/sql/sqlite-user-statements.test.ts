import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createSqliteNamespace, type SqliteNamespace } from '../../contract/backends/sqlite.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface BusinessDatabase {
  business_rows: { id: string };
}

/** Starts a write transaction on `holder` (another connection to the same file) kept open until `release()`. */
function holdWriteLock(holder: SqliteStore<BusinessDatabase>): { release: () => void; done: Promise<void> } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const done = holder.db.transaction().execute(async (trx) => {
    await trx.insertInto('business_rows').values({ id: 'held' }).execute();
    await gate;
    await trx.deleteFrom('business_rows').where('id', '=', 'held').execute();
  });
  return { release, done };
}

describe('sqlite: the application’s own statements on a store’s connection wait for the lock (issue 34 item 5)', () => {
  let namespace: SqliteNamespace;
  const stores: SqliteStore<BusinessDatabase>[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await namespace?.drop();
  });

  async function twoStores(
    busyTimeoutMs: number,
  ): Promise<[SqliteStore<BusinessDatabase>, SqliteStore<BusinessDatabase>]> {
    namespace = await createSqliteNamespace();
    const first = await SqliteStore.open<BusinessDatabase>(namespace.path, { busyTimeoutMs });
    await first.migrate();
    await sql`create table business_rows (id text primary key)`.execute(first.db);
    const second = await SqliteStore.open<BusinessDatabase>(namespace.path, { busyTimeoutMs });
    stores.push(first, second);
    return [first, second];
  }

  it('a write through store.db outside a transaction waits for another connection’s write lock', async () => {
    const [holder, waiter] = await twoStores(30_000);
    const lock = holdWriteLock(holder);
    await sleep(20);
    const write = waiter.db.insertInto('business_rows').values({ id: 'autocommit' }).execute();
    // Released by a timer: it only fires because the waiting write does not block the event loop.
    setTimeout(lock.release, 300);
    await write;
    await lock.done;
    const rows = await waiter.db.selectFrom('business_rows').select('id').execute();
    expect(rows.map((r) => r.id)).toEqual(['autocommit']);
  });

  it('a transaction through store.db waits at BEGIN, and its writes commit once the lock is free', async () => {
    const [holder, waiter] = await twoStores(30_000);
    const lock = holdWriteLock(holder);
    await sleep(20);
    const work = waiter.db.transaction().execute(async (trx) => {
      const before = await trx.selectFrom('business_rows').select('id').execute();
      await trx
        .insertInto('business_rows')
        .values({ id: `tx-after-${before.length}` })
        .execute();
    });
    setTimeout(lock.release, 300);
    await work;
    await lock.done;
    const rows = await waiter.db.selectFrom('business_rows').select('id').execute();
    // The transaction read after the holder committed and removed its row: it saw none.
    expect(rows.map((r) => r.id)).toEqual(['tx-after-0']);
  });

  it('a lock held longer than busyTimeoutMs: the statement fails with SQLITE_BUSY and writes nothing', async () => {
    const [holder, waiter] = await twoStores(300);
    const lock = holdWriteLock(holder);
    await sleep(20);
    const error = await waiter.db
      .insertInto('business_rows')
      .values({ id: 'too-late' })
      .execute()
      .catch((e: unknown) => e);
    lock.release();
    await lock.done;
    expect((error as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    const rows = await waiter.db.selectFrom('business_rows').select('id').execute();
    expect(rows).toEqual([]);
  });
});

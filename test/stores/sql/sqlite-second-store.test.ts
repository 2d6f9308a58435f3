import { afterEach, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { SqliteStore } from '../../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createSqliteNamespace, type SqliteNamespace } from '../../contract/backends/sqlite.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The longest gap between ticks of a 10 ms interval while `work` runs: how long the event loop was blocked. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  try {
    const result = await work();
    return { result, stallMs: Math.max(stallMs, performance.now() - last) };
  } finally {
    clearInterval(timer);
  }
}

describe('sqlite: two stores on one file in one process (issue 11 item 6)', () => {
  let namespace: SqliteNamespace;
  const stores: SqliteStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await namespace?.drop();
  });

  async function twoStores(busyTimeoutMs?: number): Promise<[SqliteStore, SqliteStore]> {
    namespace = await createSqliteNamespace();
    const options = busyTimeoutMs === undefined ? {} : { busyTimeoutMs };
    const first = await SqliteStore.open(namespace.path, options);
    await first.migrate();
    const second = await SqliteStore.open(namespace.path, options);
    stores.push(first, second);
    return [first, second];
  }

  it('a claim waiting for the other store’s write lock never blocks the event loop, and succeeds once it is free', async () => {
    const [holder, waiter] = await twoStores();
    const guard = new IdempotencyGuard(waiter);
    const key = new RequestKey('sqlite-stall', `k-${Date.now()}`);
    const { result, stallMs } = await longestStall(async () => {
      // The holder keeps a write transaction open across an await for 600 ms.
      const held = holder.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('payonce_receipts').where('provider', '=', 'nobody').execute();
        await sleep(600);
      });
      await sleep(20);
      const outcome = await guard.run(key, async () => ({ status: 201, body: 'done' }));
      await held;
      return outcome;
    });
    expect(result.isReplay).toBe(false);
    expect(result.response.status).toBe(201);
    // Before: better-sqlite3 busy-waited synchronously for busy_timeout (5 s) per try, 6 tries: ~25-30 s frozen.
    expect(stallMs).toBeLessThan(400);
  });

  it('a lock held longer than busyTimeoutMs: StoreUnavailable after about that time, still without a stall', async () => {
    const [holder, waiter] = await twoStores(1_000);
    const guard = new IdempotencyGuard(waiter);
    const started = performance.now();
    const { result, stallMs } = await longestStall(async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const held = holder.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('payonce_receipts').where('provider', '=', 'nobody').execute();
        await gate;
      });
      await sleep(20);
      const error = await guard.run(new RequestKey('sqlite-stall', 'busy'), () => ({ body: 'x' })).catch((e) => e);
      release();
      await held;
      return error;
    });
    expect((result as { code?: string }).code).toBe('STORE_UNAVAILABLE');
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(stallMs).toBeLessThan(400);
  });
});

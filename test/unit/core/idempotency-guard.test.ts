import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { StoreUnavailable, TransactionsUnsupported } from '../../../src/core/errors.js';
import type { GuardEvents } from '../../../src/core/guard-events.js';
import { IdempotencyGuard } from '../../../src/core/idempotency-guard.js';
import { RequestKey } from '../../../src/core/request-key.js';
import { MemoryStore } from '../../../src/stores/memory/memory-store.js';
import type { Store } from '../../../src/stores/store.js';

const key = new RequestKey('unit', 'evt_1');

describe('IdempotencyGuard', () => {
  it('wraps driver errors in StoreUnavailable and keeps the cause', async () => {
    const cause = new Error('ECONNREFUSED');
    const broken: Store = Object.assign(new MemoryStore(), { insertClaim: () => Promise.reject(cause) });
    const guard = new IdempotencyGuard(broken);
    let ran = false;
    const error = await guard
      .run(key, async () => {
        ran = true;
        return {};
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect((error as StoreUnavailable).cause).toBe(cause);
    expect((error as StoreUnavailable).code).toBe('STORE_UNAVAILABLE');
    expect(ran).toBe(false);
  });

  it('accepts a handler that returns nothing and stores an empty 200', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    let work = 0;
    const outcome = await guard.run(new RequestKey('unit', 'void'), async () => {
      work++;
    });
    expect(work).toBe(1);
    expect(outcome.response.status).toBe(200);
    expect(outcome.response.body.byteLength).toBe(0);
  });

  it('refuses runInTransaction on a store without transactions', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    await expect(guard.runInTransaction(undefined as never, key, async () => ({}))).rejects.toBeInstanceOf(
      TransactionsUnsupported,
    );
  });

  it('emits typed events for claim, completion, replay and in-progress; a throwing listener changes nothing', async () => {
    const clock = new ManualClock();
    const guard = new IdempotencyGuard(new MemoryStore(), { clock, staleAfterMs: 10_000, maxRetryAfterMs: 2_000 });
    const seen: Array<keyof GuardEvents> = [];
    const names: Array<keyof GuardEvents> = [
      'receipt:claimed',
      'receipt:completed',
      'receipt:replayed',
      'receipt:in-progress',
      'receipt:failed',
    ];
    for (const name of names) guard.on(name, () => seen.push(name));
    guard.on('receipt:claimed', () => {
      throw new Error('observer bug');
    });
    let inProgressRetryAfter = 0;
    guard.on('receipt:in-progress', (event) => {
      inProgressRetryAfter = event.retryAfterMs;
    });
    let release!: () => void;
    const running = guard.run(key, () => new Promise((resolve) => (release = () => resolve({ body: 'ok' }))));
    while (!release) await new Promise((resolve) => setImmediate(resolve));
    clock.advance(9_000);
    await guard.run(key, async () => ({})).catch(() => undefined);
    expect(inProgressRetryAfter).toBe(1_000);
    release();
    await running;
    await guard.run(key, async () => ({}));
    expect(seen).toEqual(['receipt:claimed', 'receipt:in-progress', 'receipt:completed', 'receipt:replayed']);
  });
});

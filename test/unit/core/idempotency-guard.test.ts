import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../packages/payonce/src/core/clock.js';
import {
  InvalidOption,
  InvalidRequestKey,
  StoreUnavailable,
  TransactionsUnsupported,
} from '../../../packages/payonce/src/core/errors.js';
import type { GuardEvents } from '../../../packages/payonce/src/core/guard-events.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import type { Store } from '../../../packages/payonce/src/core/store.js';
import { MemoryStore } from '../../../packages/payonce/src/stores/memory/memory-store.js';

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

  it('survives a thrown value that cannot be turned into text, and records it as failed', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const key = new RequestKey('unit', 'unprintable');
    const weird = Object.create(null) as object;
    await expect(guard.run(key, () => Promise.reject(weird))).rejects.toBe(weird);
    const receipt = await guard.find(key);
    expect(receipt?.status).toBe('failed');
    expect(receipt?.error).toContain('cannot be converted to text');
  });

  it('never lets an async listener that rejects become an unhandled rejection', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    guard.on('receipt:claimed', async () => {
      throw new Error('async observer bug');
    });
    const outcome = await guard.run(new RequestKey('unit', 'async-listener'), async () => ({ body: 'ok' }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcome.isReplay).toBe(false);
  });

  it('reports a failure the store could not record as an event', async () => {
    const inner = new MemoryStore();
    const store: Store = Object.assign(Object.create(inner) as MemoryStore, {
      fail: () => Promise.reject(new Error('connection reset')),
    });
    const guard = new IdempotencyGuard(store);
    const seen: string[] = [];
    guard.on('receipt:fail-unrecorded', (event) => seen.push(event.error));
    const boom = new Error('handler bug');
    await expect(guard.run(new RequestKey('unit', 'fail-unrecorded'), () => Promise.reject(boom))).rejects.toBe(boom);
    expect(seen).toEqual(['Error: connection reset']);
  });

  it('floors a fractional clock and refuses a clock that is not epoch ms', async () => {
    const fractional = new IdempotencyGuard(new MemoryStore(), { clock: { now: () => 1_767_225_600_000.75 } });
    await fractional.run(new RequestKey('unit', 'fraction'), async () => ({}));
    expect((await fractional.find(new RequestKey('unit', 'fraction')))?.claimedAtMs).toBe(1_767_225_600_000);
    const broken = new IdempotencyGuard(new MemoryStore(), { clock: { now: () => Number.NaN } });
    await expect(broken.run(new RequestKey('unit', 'nan'), async () => ({}))).rejects.toBeInstanceOf(InvalidOption);
    expect(await broken.store.find(new RequestKey('unit', 'nan'))).toBeNull();
  });

  it('refuses an oversized response as a failed run: the receipt is failed and the next delivery runs again', async () => {
    const guard = new IdempotencyGuard(new MemoryStore(), { maxResponseBytes: 8 });
    const key = new RequestKey('unit', 'oversized');
    let runs = 0;
    const handler = async () => ({ body: new Uint8Array(++runs === 1 ? 9 : 8) });
    await expect(guard.run(key, handler)).rejects.toThrow('maxResponseBytes');
    expect((await guard.find(key))?.status).toBe('failed');
    const second = await guard.run(key, handler);
    expect([second.isReplay, second.response.status, second.response.body.byteLength]).toEqual([false, 200, 8]);
    expect(runs).toBe(2);
  });

  it('rejects a key that is not a RequestKey and a fingerprint that cannot be stored, before any store call', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    await expect(guard.run(null as unknown as RequestKey, async () => ({}))).rejects.toBeInstanceOf(InvalidRequestKey);
    await expect(
      guard.run(new RequestKey('unit', 'fp'), async () => ({}), { fingerprint: 'a\u0000b' }),
    ).rejects.toBeInstanceOf(InvalidOption);
    expect(await guard.find(new RequestKey('unit', 'fp'))).toBeNull();
  });
});

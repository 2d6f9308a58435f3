import { describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';

const RESPONSE = { status: 200, headers: {}, body: new Uint8Array([1]) };

/** The providers MemoryStore keeps a map for (its internal layout: provider → external id → entry). */
const providersOf = (store: MemoryStore): string[] => [
  ...(store as unknown as { providers: Map<string, unknown> }).providers.keys(),
];

describe('MemoryStore purge', () => {
  it('keeps no map for a provider whose receipts are all purged, and keeps one that still holds a processing receipt', async () => {
    const store = new MemoryStore();
    for (const provider of ['tenant-a', 'tenant-b']) {
      const key = new RequestKey(provider, 'evt_1');
      await store.insertClaim({ key, nowMs: 1_000, fingerprint: null });
      expect(await store.complete({ key, attempt: 1, nowMs: 1_000, response: RESPONSE })).toBe(true);
    }
    await store.insertClaim({ key: new RequestKey('tenant-b', 'evt_2'), nowMs: 1_000, fingerprint: null });

    expect(await store.purgeBatch(2_000, 10)).toBe(2);
    expect(providersOf(store)).toEqual(['tenant-b']);

    // A provider purged away claims afresh.
    const again = await store.insertClaim({
      key: new RequestKey('tenant-a', 'evt_1'),
      nowMs: 3_000,
      fingerprint: null,
    });
    expect(again.inserted).toBe(true);
    expect(providersOf(store)).toEqual(['tenant-b', 'tenant-a']);
  });

  it('stops at the limit across providers', async () => {
    const store = new MemoryStore();
    for (const provider of ['p1', 'p2']) {
      for (const id of ['e1', 'e2']) {
        const key = new RequestKey(provider, id);
        await store.insertClaim({ key, nowMs: 1_000, fingerprint: null });
        await store.complete({ key, attempt: 1, nowMs: 1_000, response: RESPONSE });
      }
    }
    expect(await store.purgeBatch(2_000, 3)).toBe(3);
    expect(await store.purgeBatch(2_000, 3)).toBe(1);
    expect(providersOf(store)).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import {
  ClaimLost,
  InvalidOption,
  InvalidRequestKey,
  PayloadMismatch,
  RequestInProgress,
} from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { Store } from '../../packages/payonce/src/core/store.js';
import type { TestBackend } from './backend.js';
import { backendFactories, backendsFromEnv, batchedBackendsSelected, redisClusterSelected } from './backends/index.js';
import { redisClusterBackend } from './backends/redis-cluster.js';
import { countingStore, deferred, observedStore, uniqueKey } from './helpers.js';

const STALE_MS = 60_000;
const utf8 = new TextEncoder();

const contractBackends: [string, () => Promise<TestBackend>][] = backendsFromEnv().map((name) => [
  name,
  async () => (await backendFactories[name]())(),
]);
if (redisClusterSelected()) contractBackends.push(['redis-cluster (3 masters)', redisClusterBackend]);
// The batched SQL stores (issue #17) pass the same contract: every call outside a transaction goes through a batch.
const batchedFactories = {
  postgres: async () => (await import('./backends/postgres.js')).postgresBackend({ batching: true }),
  mysql: async () => (await import('./backends/mysql.js')).mysqlBackend({ batching: true }),
};
for (const base of batchedBackendsSelected()) contractBackends.push([`${base} batched`, batchedFactories[base]]);

for (const [backendName, openBackend] of contractBackends) {
  describe(`${backendName}: Store contract`, () => {
    let backend: TestBackend;
    let store: Store;

    // A Redis Cluster is started for its suite (3 servers, cluster create, cluster_state:ok): on a loaded machine that
    // can take longer than the default 30 s hook timeout.
    beforeAll(async () => {
      backend = await openBackend();
      store = await backend.open();
    }, 90_000);
    afterAll(async () => {
      await backend?.cleanup();
    });

    const guardOn = (s: Store, clock = new ManualClock()) => new IdempotencyGuard(s, { clock, staleAfterMs: STALE_MS });

    it('runs the handler once for 5 sequential deliveries and replays the other 4', async () => {
      const guard = guardOn(store);
      const key = uniqueKey('seq');
      let runs = 0;
      const outcomes = [];
      for (let i = 0; i < 5; i++) {
        outcomes.push(
          await guard.run(key, async () => {
            runs++;
            return { status: 201, headers: { 'content-type': 'application/json' }, body: `{"run":${runs}}` };
          }),
        );
      }
      expect(runs).toBe(1);
      expect(outcomes.map((o) => o.isReplay)).toEqual([false, true, true, true, true]);
      for (const outcome of outcomes) {
        expect(outcome.response.status).toBe(201);
        expect(outcome.response.headers).toEqual({ 'content-type': 'application/json' });
        expect(Buffer.from(outcome.response.body).toString('utf8')).toBe('{"run":1}');
        expect(outcome.attempts).toBe(1);
      }
    });

    it('runs the handler once for 50 parallel deliveries from two guards on separate connections', async () => {
      const second = await backend.open();
      const clock = new ManualClock();
      const guards = [guardOn(store, clock), guardOn(second, clock)];
      const key = uniqueKey('storm');
      let runs = 0;
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) =>
          guards[i % 2]!.run(key, async () => {
            runs++;
            await new Promise((resolve) => setTimeout(resolve, 50));
            return { body: 'done' };
          }),
        ),
      );
      expect(runs).toBe(1);
      const fresh = results.filter((r) => r.status === 'fulfilled' && !r.value.isReplay);
      expect(fresh).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'fulfilled') {
          expect(Buffer.from(result.value.response.body).toString()).toBe('done');
        } else {
          expect(result.reason).toBeInstanceOf(RequestInProgress);
        }
      }
      const after = await guards[1]!.run(key, async () => {
        runs++;
        return {};
      });
      expect(after.isReplay).toBe(true);
      expect(runs).toBe(1);
    });

    it('marks a throwing handler failed with bounded error text and runs it again on the next delivery', async () => {
      const guard = new IdempotencyGuard(store, {
        clock: new ManualClock(),
        staleAfterMs: STALE_MS,
        maxErrorChars: 100,
      });
      const key = uniqueKey('fail');
      const boom = new Error('x'.repeat(10_000));
      await expect(guard.run(key, () => Promise.reject(boom))).rejects.toBe(boom);
      const failed = await guard.find(key);
      expect(failed?.status).toBe('failed');
      expect(failed?.error?.startsWith('Error: xxx')).toBe(true);
      expect(Array.from(failed?.error ?? '').length).toBe(100);
      expect(failed?.finishedAtMs).not.toBeNull();

      let runs = 0;
      const retried = await guard.run(key, async (context) => {
        runs++;
        expect(context.retry).toBe(true);
        expect(context.attempt).toBe(2);
        return { body: 'second time lucky' };
      });
      expect(runs).toBe(1);
      expect(retried.isReplay).toBe(false);
      expect(retried.attempts).toBe(2);
      const completed = await guard.find(key);
      expect(completed?.status).toBe('completed');
      expect(completed?.error).toBeNull();
    });

    it('takes over a stale claim only at or after staleAfterMs, and fences the slow original', async () => {
      const second = await backend.open();
      const clock = new ManualClock();
      const original = guardOn(store, clock);
      const rescuer = guardOn(second, clock);
      const key = uniqueKey('stale');
      const release = deferred<void>();
      const entered = deferred<void>();
      const slow = original.run(key, async () => {
        entered.resolve();
        await release.promise;
        return { status: 200, body: 'late original' };
      });
      await entered.promise;

      clock.advance(STALE_MS - 1);
      const early = await rescuer.run(key, async () => ({ body: 'too early' })).catch((e: unknown) => e);
      expect(early).toBeInstanceOf(RequestInProgress);
      expect((early as RequestInProgress).retryAfterMs).toBeGreaterThan(0);

      clock.advance(1);
      let rescues = 0;
      const rescued = await rescuer.run(key, async (context) => {
        rescues++;
        expect(context.takeover).toBe(true);
        return { status: 202, body: 'winner' };
      });
      expect(rescues).toBe(1);
      expect(rescued.isReplay).toBe(false);
      expect(rescued.attempts).toBe(2);

      release.resolve();
      await expect(slow).rejects.toBeInstanceOf(ClaimLost);
      const receipt = await rescuer.find(key);
      expect(receipt?.status).toBe('completed');
      expect(receipt?.attempts).toBe(2);
      expect(receipt?.response?.status).toBe(202);
      expect(Buffer.from(receipt?.response?.body ?? []).toString()).toBe('winner');
    });

    it('fences a taken-over handler that throws: the failure is not recorded over the winner', async () => {
      const clock = new ManualClock();
      const guard = guardOn(store, clock);
      const key = uniqueKey('fence-fail');
      const release = deferred<void>();
      const entered = deferred<void>();
      const slow = guard.run(key, async () => {
        entered.resolve();
        await release.promise;
        throw new Error('late failure');
      });
      await entered.promise;
      clock.advance(STALE_MS);
      await guard.run(key, async () => ({ body: 'winner' }));
      release.resolve();
      await expect(slow).rejects.toThrow('late failure');
      const receipt = await guard.find(key);
      expect(receipt?.status).toBe('completed');
      expect(receipt?.error).toBeNull();
      expect(Buffer.from(receipt?.response?.body ?? []).toString()).toBe('winner');
    });

    it('renews a held claim (renewClaim moves claimedAtMs) and refuses a renewal of a lost or finished claim', async () => {
      const renew = store.renewClaim?.bind(store);
      expect(renew).toBeTypeOf('function');
      if (renew === undefined) return;
      const clock = new ManualClock();
      const key = uniqueKey('renew');
      const t0 = clock.now();
      expect(await renew({ key, attempt: 1, nowMs: t0 })).toBe(false); // no receipt yet
      await store.insertClaim({ key, nowMs: t0, fingerprint: null });
      expect(await renew({ key, attempt: 1, nowMs: t0 + 1_000 })).toBe(true);
      expect((await store.find(key))?.claimedAtMs).toBe(t0 + 1_000);
      expect(await renew({ key, attempt: 2, nowMs: t0 + 2_000 })).toBe(false); // not its attempt
      expect((await store.find(key))?.claimedAtMs).toBe(t0 + 1_000);
      // Taken over: the fenced owner's heartbeat fails, the new owner's succeeds.
      const taken = await store.takeover({ key, expectedStatus: 'processing', expectedAttempts: 1, nowMs: t0 + 3_000 });
      expect(taken?.attempts).toBe(2);
      expect(await renew({ key, attempt: 1, nowMs: t0 + 4_000 })).toBe(false);
      expect(await renew({ key, attempt: 2, nowMs: t0 + 4_000 })).toBe(true);
      const response = { status: 200, headers: {}, body: utf8.encode('done') };
      expect(await store.complete({ key, attempt: 2, nowMs: t0 + 5_000, response })).toBe(true);
      expect(await renew({ key, attempt: 2, nowMs: t0 + 6_000 })).toBe(false); // completed
      const done = await store.find(key);
      expect(done?.status).toBe('completed');
      expect(done?.claimedAtMs).toBe(t0 + 4_000);
      const failedKey = uniqueKey('renew-failed');
      await store.insertClaim({ key: failedKey, nowMs: t0, fingerprint: null });
      expect(await store.fail({ key: failedKey, attempt: 1, nowMs: t0, error: 'boom' })).toBe(true);
      expect(await renew({ key: failedKey, attempt: 1, nowMs: t0 + 1_000 })).toBe(false);
      expect((await store.find(failedKey))?.status).toBe('failed');
    });

    it('keeps a running handler’s claim past the lease with heartbeats; Retry-After is the lease left', async () => {
      const observed = observedStore(store);
      const clock = new ManualClock();
      const owner = new IdempotencyGuard(observed.store, { clock, leaseMs: STALE_MS, heartbeatMs: 20 });
      const rescuer = new IdempotencyGuard(await backend.open(), {
        clock,
        leaseMs: STALE_MS,
        heartbeatMs: 0,
        maxRetryAfterMs: STALE_MS,
      });
      const key = uniqueKey('heartbeat');
      const release = deferred<void>();
      const entered = deferred<void>();
      const running = owner.run(key, async () => {
        entered.resolve();
        await release.promise;
        return { body: 'owner finished' };
      });
      await entered.promise;
      // Twice past the lease counted from the claim, with a heartbeat in between: still the owner's.
      clock.advance(STALE_MS - 1_000);
      expect(await observed.nextRenewal()).toBe(true);
      const renewedAt = clock.now();
      expect((await store.find(key))?.claimedAtMs).toBeGreaterThanOrEqual(renewedAt);
      clock.advance(STALE_MS - 2_000);
      const leaseLeftMs = async () => ((await store.find(key))?.claimedAtMs ?? 0) + STALE_MS - clock.now();
      const leftBefore = await leaseLeftMs();
      const busy = await rescuer.run(key, async () => ({ body: 'must not run' })).catch((e: unknown) => e);
      const leftAfter = await leaseLeftMs(); // a heartbeat may land in between: Retry-After lies within
      expect(busy).toBeInstanceOf(RequestInProgress);
      expect((busy as RequestInProgress).retryAfterMs).toBeGreaterThanOrEqual(leftBefore);
      expect((busy as RequestInProgress).retryAfterMs).toBeLessThanOrEqual(leftAfter);
      release.resolve();
      const outcome = await running;
      expect(outcome.isReplay).toBe(false);
      expect(outcome.attempts).toBe(1);
      expect((await rescuer.find(key))?.status).toBe('completed');
    });

    it('treats a claim whose renewal is refused (taken over while paused) as lost and never completes it', async () => {
      const observed = observedStore(store);
      const clock = new ManualClock();
      const events: number[] = [];
      const owner = new IdempotencyGuard(observed.store, { clock, leaseMs: STALE_MS, heartbeatMs: 50 });
      owner.on('receipt:claim-lost', ({ attempt }) => events.push(attempt));
      const rescuer = new IdempotencyGuard(await backend.open(), { clock, leaseMs: STALE_MS, heartbeatMs: 0 });
      const key = uniqueKey('paused');
      const release = deferred<void>();
      const entered = deferred<void>();
      const paused = owner.run(key, async () => {
        entered.resolve();
        await release.promise;
        return { body: 'late owner' };
      });
      await entered.promise;
      // The owner pauses (its heartbeats stop): the lease expires per the store's clock and the claim is taken over.
      observed.pauseRenewals();
      clock.advance(STALE_MS);
      const hold = deferred<void>();
      const rescuerEntered = deferred<void>();
      const rescue = rescuer.run(key, async (context) => {
        expect(context.takeover).toBe(true);
        rescuerEntered.resolve();
        await hold.promise;
        return { body: 'rescuer' };
      });
      await rescuerEntered.promise;
      // The resumed owner's next heartbeat is refused: its claim is lost.
      const refused = observed.nextRenewal();
      observed.resumeRenewals();
      // A heartbeat already past the pause may land first (and be refused or not); the next ones are refused.
      let renewed = await refused;
      while (renewed) renewed = await observed.nextRenewal();
      release.resolve();
      await expect(paused).rejects.toBeInstanceOf(ClaimLost);
      expect(observed.completes).toBe(0);
      expect(events).toEqual([1]);
      hold.resolve();
      expect((await rescue).attempts).toBe(2);
      const receipt = await store.find(key);
      expect(receipt?.status).toBe('completed');
      expect(Buffer.from(receipt?.response?.body ?? []).toString()).toBe('rescuer');
    });

    it('purges an abandoned claim once its heartbeat is older than the cut-off and its lease has expired', async () => {
      const clock = new ManualClock(); // after the unscoped purge tests' cut-offs: nothing left here is theirs
      const guard = new IdempotencyGuard(store, { clock, leaseMs: STALE_MS, purgeBatchSize: 2 });
      const provider = `abandoned-${uniqueKey('a').externalId}`;
      const keyAt = (i: number) => new RequestKey(provider, `evt_${i}`);
      // Claims whose owners died (no heartbeat ever again), and one whose owner still renews it.
      for (let i = 0; i < 3; i++) await store.insertClaim({ key: keyAt(i), nowMs: clock.now(), fingerprint: null });
      await store.insertClaim({ key: keyAt(3), nowMs: clock.now(), fingerprint: null });
      clock.advance(1_000);
      // Older than the cut-off but within the lease: not abandoned yet.
      expect(await guard.purge({ olderThan: 500, provider })).toBe(0);
      clock.advance(STALE_MS);
      expect(await store.renewClaim?.({ key: keyAt(3), attempt: 1, nowMs: clock.now() - 100 })).toBe(true);
      expect(await guard.purge({ olderThan: 100_000, provider })).toBe(0); // heartbeats younger than the cut-off
      expect(await guard.purge({ olderThan: 500, provider })).toBe(3);
      for (let i = 0; i < 3; i++) expect(await guard.find(keyAt(i))).toBeNull();
      expect((await guard.find(keyAt(3)))?.status).toBe('processing');
      // The purged keys are usable again: a new claim runs the handler.
      const again = await guard.run(keyAt(0), async () => ({ body: 'new claim' }));
      expect(again.isReplay).toBe(false);
      expect(again.attempts).toBe(1);
    });

    it('never changes a completed receipt again', async () => {
      const clock = new ManualClock();
      const guard = guardOn(store, clock);
      const key = uniqueKey('terminal');
      await guard.run(key, async () => ({ body: 'final' }));
      const before = await store.find(key);
      expect(before?.status).toBe('completed');

      clock.advance(STALE_MS * 10);
      const nowMs = clock.now();
      expect(await store.takeover({ key, expectedStatus: 'processing', expectedAttempts: 1, nowMs })).toBeNull();
      expect(await store.takeover({ key, expectedStatus: 'failed', expectedAttempts: 1, nowMs })).toBeNull();
      const other = { status: 500, headers: {}, body: utf8.encode('overwrite') };
      expect(await store.complete({ key, attempt: 1, nowMs, response: other })).toBe(false);
      expect(await store.fail({ key, attempt: 1, nowMs, error: 'overwrite' })).toBe(false);
      const replay = await guard.run(key, async () => ({ body: 'again' }));
      expect(replay.isReplay).toBe(true);
      expect(await store.find(key)).toEqual(before);
    });

    it('rejects invalid keys before any store call', async () => {
      const counting = countingStore(store);
      const guard = guardOn(counting.store);
      const bad: Array<[string, string]> = [
        ['', 'evt_1'],
        ['stripe', ''],
        ['stripe', 'e'.repeat(161)],
        ['s'.repeat(161), 'evt_1'],
        ['stripe', 'evt\u00001'],
      ];
      for (const [provider, id] of bad) {
        expect(() => new RequestKey(provider, id)).toThrow(InvalidRequestKey);
        const forged = { provider, externalId: id } as RequestKey;
        await expect(guard.run(forged, async () => ({}))).rejects.toBeInstanceOf(InvalidRequestKey);
        await expect(guard.find(forged)).rejects.toBeInstanceOf(InvalidRequestKey);
      }
      expect(counting.calls).toBe(0);
      const longest = new RequestKey('p'.repeat(160), `${'é'.repeat(150)}${uniqueKey('x').externalId.slice(0, 10)}`);
      const outcome = await guard.run(longest, async () => ({ body: 'ok' }));
      expect(outcome.isReplay).toBe(false);
      expect((await store.find(longest))?.key.externalId).toBe(longest.externalId);
    });

    it('replays a binary non-UTF-8 body and a 5 MB body byte for byte', async () => {
      const guard = guardOn(store);
      const binary = new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x0a, 0x00]);
      const big = new Uint8Array(5 * 1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
      for (const body of [binary, big]) {
        const key = uniqueKey('bytes');
        await guard.run(key, async () => ({
          status: 200,
          headers: { 'content-type': 'application/octet-stream' },
          body,
        }));
        const replay = await guard.run(key, async () => ({ body: 'not me' }));
        expect(replay.isReplay).toBe(true);
        expect(replay.response.body).toBeInstanceOf(Uint8Array);
        expect(replay.response.body.byteLength).toBe(body.byteLength);
        expect(Buffer.compare(Buffer.from(replay.response.body), Buffer.from(body))).toBe(0);
        expect(replay.response.headers).toEqual({ 'content-type': 'application/octet-stream' });
      }
    });

    it('rejects the same key with a different payload fingerprint and runs nothing', async () => {
      const guard = guardOn(store);
      const key = uniqueKey('fp');
      let runs = 0;
      const handler = async () => {
        runs++;
        return { body: 'ok' };
      };
      await guard.run(key, handler, { payload: '{"amount":100}' });
      const mismatch = await guard.run(key, handler, { payload: '{"amount":999}' }).catch((e: unknown) => e);
      expect(mismatch).toBeInstanceOf(PayloadMismatch);
      expect(runs).toBe(1);
      const same = await guard.run(key, handler, { payload: utf8.encode('{"amount":100}') });
      expect(same.isReplay).toBe(true);
      expect(runs).toBe(1);
    });

    it('purges only finished receipts, in batches, and returns the count', async () => {
      const clock = new ManualClock(1_000_000_000_000); // earlier than every other test's receipts;
      const guard = new IdempotencyGuard(store, { clock, staleAfterMs: STALE_MS, purgeBatchSize: 2 });
      const prefix = uniqueKey('purge').externalId;
      const keyAt = (i: number) => new RequestKey('purge-test', `${prefix}-${i}`);
      for (let i = 0; i < 4; i++) await guard.run(keyAt(i), async () => ({ body: `done ${i}` }));
      await guard.run(keyAt(4), () => Promise.reject(new Error('failed'))).catch(() => undefined);
      const hold = deferred<void>();
      const entered = deferred<void>();
      const running = guard.run(keyAt(5), async () => {
        entered.resolve();
        await hold.promise;
        return {};
      });
      await entered.promise;
      clock.advance(1_000);
      await guard.run(keyAt(6), async () => ({ body: 'recent' }));

      const purged = await guard.purge({ olderThan: 500 });
      expect(purged).toBe(5);
      for (let i = 0; i < 5; i++) expect(await guard.find(keyAt(i))).toBeNull();
      expect((await guard.find(keyAt(5)))?.status).toBe('processing');
      expect((await guard.find(keyAt(6)))?.status).toBe('completed');
      expect(await guard.purge({ olderThan: new Date(clock.now() - 500) })).toBe(0);
      hold.resolve();
      await running;
    });

    it("purge with a provider deletes only that provider's finished receipts", async () => {
      const clock = new ManualClock(900_000_000_000); // before every other test's receipts, the purge test's too
      const guard = new IdempotencyGuard(store, { clock, staleAfterMs: STALE_MS, purgeBatchSize: 2 });
      const id = uniqueKey('scoped').externalId;
      // Byte-exact: a case variant and a longer name sharing the prefix are other providers.
      const target = `http-${id}`;
      const others = [`HTTP-${id}`, `http-${id}:x`, `stripe-${id}`];
      const keysOf = (provider: string) => [0, 1, 2, 3, 4].map((i) => new RequestKey(provider, `evt_${i}`));
      const hold = deferred<void>();
      const running: Promise<unknown>[] = [];
      for (const provider of [target, ...others]) {
        const [done1, done2, failed, held] = keysOf(provider) as [RequestKey, RequestKey, RequestKey, RequestKey];
        await guard.run(done1, () => ({ body: 'one' }));
        await guard.run(done2, () => ({ body: 'two' }));
        await guard.run(failed, () => Promise.reject(new Error('failed'))).catch(() => undefined);
        const entered = deferred<void>();
        running.push(
          guard.run(held, async () => {
            entered.resolve();
            await hold.promise;
            return {};
          }),
        );
        await entered.promise;
      }
      clock.advance(1_000);
      for (const provider of [target, ...others]) await guard.run(keysOf(provider)[4]!, () => ({ body: 'recent' }));

      expect(await guard.purge({ olderThan: 500, provider: `nobody-${id}` })).toBe(0);
      expect(await guard.purge({ olderThan: 500, provider: target })).toBe(3);
      const statuses = async (provider: string) =>
        Promise.all(keysOf(provider).map(async (k) => (await guard.find(k))?.status ?? null));
      expect(await statuses(target)).toEqual([null, null, null, 'processing', 'completed']);
      for (const provider of others) {
        expect(await statuses(provider)).toEqual(['completed', 'completed', 'failed', 'processing', 'completed']);
      }
      expect(await guard.purge({ olderThan: 500, provider: target })).toBe(0);
      expect(await store.purgeBatch(clock.now() - 500, 10, others[2]!, clock.now() - STALE_MS)).toBe(3);
      expect(await statuses(others[2]!)).toEqual([null, null, null, 'processing', 'completed']);
      // Unscoped, the rest goes, whatever purged before (each index stays consistent with the other).
      expect(await guard.purge({ olderThan: new Date(clock.now() - 500) })).toBe(6);
      for (const provider of others.slice(0, 2)) {
        expect(await statuses(provider)).toEqual([null, null, null, 'processing', 'completed']);
      }
      hold.resolve();
      await Promise.all(running);
    });

    it('rejects an invalid purge provider before any store call', async () => {
      const counting = countingStore(store);
      const guard = guardOn(counting.store);
      for (const provider of ['', 'a\u0000b', 'p'.repeat(161)]) {
        await expect(guard.purge({ olderThan: 1_000, provider })).rejects.toBeInstanceOf(InvalidRequestKey);
      }
      expect(counting.calls).toBe(0);
    });

    it('answers alreadyHandled for each state', async () => {
      const clock = new ManualClock();
      const guard = guardOn(store, clock);
      const key = uniqueKey('handled');
      expect(await guard.alreadyHandled(key)).toBe(false);
      const hold = deferred<void>();
      const entered = deferred<void>();
      const running = guard.run(key, async () => {
        entered.resolve();
        await hold.promise;
        throw new Error('first try fails');
      });
      await entered.promise;
      expect(await guard.alreadyHandled(key)).toBe(false);
      hold.resolve();
      await expect(running).rejects.toThrow('first try fails');
      expect((await guard.find(key))?.status).toBe('failed');
      expect(await guard.alreadyHandled(key)).toBe(false);
      await guard.run(key, async () => ({}));
      expect(await guard.alreadyHandled(key)).toBe(true);
    });

    it('keeps case-distinct and space-distinct keys distinct', async () => {
      const guard = guardOn(store);
      const base = uniqueKey('case').externalId;
      const ids = [`${base}_A`, `${base}_a`, `${base}_a `, `${base}_\u00e1`, `${base}_a\u0301`];
      const bodies = [];
      for (const id of ids) {
        const outcome = await guard.run(new RequestKey('case-test', id), async () => ({ body: id }));
        expect(outcome.isReplay).toBe(false);
        bodies.push(Buffer.from(outcome.response.body).toString());
      }
      expect(bodies).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      const providers = ['Stripe', 'stripe'];
      for (const provider of providers) {
        const outcome = await guard.run(new RequestKey(provider, base), async () => ({ body: provider }));
        expect(outcome.isReplay).toBe(false);
      }
      for (const id of ids) {
        expect((await guard.find(new RequestKey('case-test', id)))?.key.externalId).toBe(id);
      }
    });

    it('records a handler error with NUL and lone surrogates as failed, so the next delivery runs again', async () => {
      const guard = guardOn(store);
      const key = uniqueKey('nul-error');
      await expect(guard.run(key, () => Promise.reject(new Error('bad \u0000 byte \ud800 here')))).rejects.toThrow(
        'bad',
      );
      const failed = await guard.find(key);
      expect(failed?.status).toBe('failed');
      expect(failed?.error).toBe('Error: bad \ufffd byte \ufffd here');
      const retried = await guard.run(key, async () => ({ body: 'ok' }));
      expect(retried.isReplay).toBe(false);
    });

    it('marks a handler that returned an invalid response failed, so the next delivery runs it again', async () => {
      // Issue #11 item 13: a stored 500 was replayed forever and the provider retried into it for days.
      const guard = guardOn(store);
      const key = uniqueKey('invalid-response');
      let runs = 0;
      const handler = async () => (++runs === 1 ? { status: 42 } : { status: 201, body: 'ok' });
      const thrown = await guard.run(key, handler).catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(InvalidOption);
      expect((thrown as InvalidOption).option).toBe('response.status');
      const failed = await guard.find(key);
      expect(failed?.status).toBe('failed');
      expect(failed?.response).toBeNull();
      expect(failed?.error).toBe('InvalidOption: invalid option response.status: must be an integer 100-599, got 42');
      const retried = await guard.run(key, handler);
      expect(runs).toBe(2);
      expect(retried.isReplay).toBe(false);
      expect(retried.response.status).toBe(201);
      expect((await guard.run(key, handler)).isReplay).toBe(true);
      expect(runs).toBe(2);
    });

    it('hands every replay its own copy of the body', async () => {
      const guard = guardOn(store);
      const key = uniqueKey('copy');
      await guard.run(key, async () => ({ body: 'abc' }));
      const first = await guard.run(key, async () => ({}));
      first.response.body[0] = 0x78;
      const second = await guard.run(key, async () => ({}));
      expect(Buffer.from(second.response.body).toString()).toBe('abc');
    });

    it('lets a duplicate on another connection wait for the in-flight claim and replay its response', async () => {
      const second = await backend.open();
      const key = uniqueKey('wait');
      const hold = deferred<void>();
      let runs = 0;
      const first = guardOn(store).run(key, async () => {
        runs++;
        await hold.promise;
        return { status: 201, body: 'first' };
      });
      while ((await store.find(key)) === null) await new Promise((resolve) => setTimeout(resolve, 5));
      const waiter = guardOn(second).run(
        key,
        async () => {
          runs++;
          return { body: 'second' };
        },
        { waitForInFlightMs: 5_000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      const released = performance.now();
      hold.resolve();
      const [a, b, waitedMs] = await Promise.all([
        first,
        waiter.then((outcome) => ({ outcome, at: performance.now() })),
      ]).then(([a, b]) => [a, b.outcome, b.at - released] as const);
      // Woken by the store's notification (or, where it cannot notify, a poll of at most 100 ms), never by the
      // 1 s safety re-read of a notifying store.
      expect(waitedMs).toBeLessThan(500);
      expect(runs).toBe(1);
      expect(a.isReplay).toBe(false);
      expect(b.isReplay).toBe(true);
      expect(b.response.status).toBe(201);
      expect(Buffer.from(b.response.body).toString()).toBe('first');
    });

    it('answers a waiting duplicate RequestInProgress when its wait ends first, and stops at once on abort', async () => {
      const key = uniqueKey('wait-timeout');
      const hold = deferred<void>();
      const first = guardOn(store).run(key, async () => {
        await hold.promise;
        return { body: 'first' };
      });
      while ((await store.find(key)) === null) await new Promise((resolve) => setTimeout(resolve, 5));
      const guard = guardOn(store, new ManualClock());
      let runs = 0;
      const handler = async () => {
        runs++;
        return {};
      };
      const started = performance.now();
      await expect(guard.run(key, handler, { waitForInFlightMs: 100 })).rejects.toBeInstanceOf(RequestInProgress);
      expect(performance.now() - started).toBeGreaterThanOrEqual(95);
      const controller = new AbortController();
      const aborted = guard.run(key, handler, { waitForInFlightMs: 10_000, signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      const abortStart = performance.now();
      await expect(aborted).rejects.toBeInstanceOf(RequestInProgress);
      expect(performance.now() - abortStart).toBeLessThan(2_000);
      hold.resolve();
      await first;
      expect(runs).toBe(0);
    });

    it('runs a waiting duplicate as the retry when the in-flight claim fails', async () => {
      const key = uniqueKey('wait-failed');
      const hold = deferred<void>();
      const first = guardOn(store).run(key, async () => {
        await hold.promise;
        throw new Error('provider timeout');
      });
      while ((await store.find(key)) === null) await new Promise((resolve) => setTimeout(resolve, 5));
      const waiter = guardOn(store).run(key, async (claim) => ({ body: `retry ${claim.attempt} ${claim.retry}` }), {
        waitForInFlightMs: 5_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      hold.resolve();
      await expect(first).rejects.toThrow('provider timeout');
      const retried = await waiter;
      expect(retried.isReplay).toBe(false);
      expect(Buffer.from(retried.response.body).toString()).toBe('retry 2 true');
    });

    it('rejects a lease of 0, negative or non-finite ms when the guard is built', () => {
      for (const staleAfterMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1.5]) {
        expect(() => new IdempotencyGuard(store, { staleAfterMs })).toThrow(InvalidOption);
      }
    });
  });
}

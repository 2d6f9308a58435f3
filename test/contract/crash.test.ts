import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestInProgress } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import type { Receipt } from '../../packages/payonce/src/core/receipt.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { tsChildArgs } from '../support/ts-child.js';
import { backendsFromEnv } from './backends/index.js';
import { type ClosableStore, createSharedNamespace, openCrashStore, SHARED_BACKENDS } from './crash-stores.js';

/**
 * The first test's lease: long enough that its early retry (kill, wait for the exit, read the receipt) falls inside
 * it although the eight tests of this file run at once; the wait costs no wall time, the heartbeat test is longer.
 */
const LEASE_MS = 5_000;
/** The heartbeat test's lease and the child's heartbeat: twenty beats a lease, so a loaded host never misses them all. */
const HEARTBEAT_LEASE_MS = 4_000;
const HEARTBEAT_MS = 200;

/** Reads `read()` every 100 ms until `done` holds (bounded by the test's timeout); returns the last read. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const child = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

/** Starts the child and resolves once it is inside the handler (its claim is committed). */
async function claimAndHang(
  backend: string,
  target: string,
  externalId: string,
  leaseArgs: readonly string[] = [String(LEASE_MS)],
): Promise<ChildProcess> {
  const proc = spawn(process.execPath, tsChildArgs(child, [backend, target, externalId, ...leaseArgs]), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('in-handler')) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`child exited with ${code} before claiming`)));
  });
  return proc;
}

const selected = new Set(backendsFromEnv());
// Every backend and both tests at once: each test owns its key and mostly waits for a lease, so running them
// concurrently costs the longest test's time rather than the sum (the children start from the same tsx cache).
for (const backend of SHARED_BACKENDS.filter((name) => selected.has(name))) {
  describe.concurrent(`${backend}: a worker killed with SIGKILL inside the handler`, () => {
    let namespace: { target: string; drop(): Promise<void> };
    let store: ClosableStore;
    beforeAll(async () => {
      namespace = await createSharedNamespace(backend);
      store = await openCrashStore(backend, namespace.target);
    });
    afterAll(async () => {
      await store?.close();
      await namespace?.drop();
    });

    it('blocks redelivery until the lease expires, then one takeover completes exactly once', async () => {
      const externalId = `crash-${randomUUID()}`;
      const key = new RequestKey('crash-test', externalId);
      const proc = await claimAndHang(backend, namespace.target, externalId);
      const killedAt = Date.now();
      proc.kill('SIGKILL');
      await once(proc, 'exit');
      expect(proc.signalCode).toBe('SIGKILL');

      const claimed = await store.find(key);
      expect(claimed?.status).toBe('processing');
      expect(claimed?.attempts).toBe(1);

      const guard = new IdempotencyGuard(store, { leaseMs: LEASE_MS });
      let runs = 0;
      const handler = async () => {
        runs++;
        return { body: 'fulfilled once' };
      };
      const early = await guard.run(key, handler).catch((e: unknown) => e);
      expect(Date.now() - (claimed?.claimedAtMs ?? killedAt)).toBeLessThan(LEASE_MS);
      expect(early).toBeInstanceOf(RequestInProgress);
      expect(runs).toBe(0);

      await new Promise((resolve) => setTimeout(resolve, LEASE_MS - (Date.now() - (claimed?.claimedAtMs ?? 0)) + 50));
      const [first, second] = await Promise.allSettled([guard.run(key, handler), guard.run(key, handler)]);
      expect(runs).toBe(1);
      const settled = [first, second].map((r) => (r.status === 'fulfilled' ? r.value.isReplay : r.reason));
      expect(settled.filter((r) => r === false)).toHaveLength(1);
      for (const other of settled.filter((r) => r !== false)) {
        expect(other === true || other instanceof RequestInProgress).toBe(true);
      }

      const final = await store.find(key);
      expect(final?.status).toBe('completed');
      expect(final?.attempts).toBe(2);
      const replay = await guard.run(key, handler);
      expect(replay.isReplay).toBe(true);
      expect(Buffer.from(replay.response.body).toString()).toBe('fulfilled once');
      expect(runs).toBe(1);
    });

    it('keeps the key while the owner heartbeats; after kill -9 it is usable again once the lease expired, not before', async () => {
      const externalId = `lease-${randomUUID()}`;
      const key = new RequestKey('crash-test', externalId);
      const proc = await claimAndHang(backend, namespace.target, externalId, [
        String(HEARTBEAT_LEASE_MS),
        String(HEARTBEAT_MS),
      ]);
      const claimed = await store.find(key);
      expect(claimed?.status).toBe('processing');
      const claimedAtMs = claimed?.claimedAtMs ?? 0;
      // Alive: the owner renews its claim past the lease counted from the claim, and the key stays its own.
      const renewed = await until(
        () => store.find(key),
        (r) => (r?.claimedAtMs ?? 0) >= claimedAtMs + HEARTBEAT_LEASE_MS,
      );
      expect(renewed?.attempts).toBe(1);
      const guard = new IdempotencyGuard(store, { leaseMs: HEARTBEAT_LEASE_MS, heartbeatMs: 0 });
      let runs = 0;
      const handler = async () => {
        runs++;
        return { body: 'after the lease' };
      };
      expect(await guard.run(key, handler).catch((e: unknown) => e)).toBeInstanceOf(RequestInProgress);

      proc.kill('SIGKILL');
      await once(proc, 'exit');
      expect(proc.signalCode).toBe('SIGKILL');
      const killedAt = Date.now();
      const lastBeatMs = (await store.find(key))?.claimedAtMs ?? 0;
      // Retry until the key is usable: every refusal came before the lease's expiry per the store's clock, and the
      // takeover after it; the whole wait is bounded by the lease plus a generous margin for a loaded host.
      let outcome: Awaited<ReturnType<typeof guard.run>> | undefined;
      let refusals = 0;
      while (outcome === undefined) {
        expect(Date.now() - killedAt).toBeLessThan(HEARTBEAT_LEASE_MS + 60_000);
        const askedAt = Date.now();
        const result = await guard.run(key, handler).catch((e: unknown) => e);
        if (result instanceof RequestInProgress) {
          refusals++;
          expect(askedAt).toBeLessThan(lastBeatMs + HEARTBEAT_LEASE_MS);
          await new Promise((resolve) => setTimeout(resolve, 100));
        } else {
          outcome = result as Awaited<ReturnType<typeof guard.run>>;
        }
      }
      expect(refusals).toBeGreaterThan(0);
      expect(outcome.isReplay).toBe(false);
      expect(outcome.attempts).toBe(2);
      expect(runs).toBe(1);
      const final = (await store.find(key)) as Receipt;
      expect(final.status).toBe('completed');
      expect(final.claimedAtMs).toBeGreaterThanOrEqual(lastBeatMs + HEARTBEAT_LEASE_MS);
    }, 120_000);
  });
}

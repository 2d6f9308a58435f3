import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestInProgress } from '../../src/core/errors.js';
import { IdempotencyGuard } from '../../src/core/idempotency-guard.js';
import { RequestKey } from '../../src/core/request-key.js';
import { backendsFromEnv } from './backends/index.js';
import { type ClosableStore, createSharedNamespace, openCrashStore, SHARED_BACKENDS } from './crash-stores.js';

const LEASE_MS = 3_000;
const child = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

/** Starts the child and resolves once it is inside the handler (its claim is committed). */
async function claimAndHang(backend: string, target: string, externalId: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, backend, target, externalId, String(LEASE_MS)], {
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
for (const backend of SHARED_BACKENDS.filter((name) => selected.has(name))) {
  describe(`${backend}: a worker killed with SIGKILL inside the handler`, () => {
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

      const guard = new IdempotencyGuard(store, { staleAfterMs: LEASE_MS });
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
  });
}

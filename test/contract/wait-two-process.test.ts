import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestInProgress } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { Store } from '../../packages/payonce/src/core/store.js';
import { tsChildArgs } from '../support/ts-child.js';
import { backendsFromEnv } from './backends/index.js';
import { type ClosableStore, createSharedNamespace } from './crash-stores.js';
import { openWaitStore } from './wait-stores.js';

const child = fileURLToPath(new URL('./wait-child.ts', import.meta.url));

/** B's wait budget (ms): far longer than any wake needs, so only a lost wake makes B answer RequestInProgress. */
const WAIT_MS = 20_000;

/**
 * Backends whose store notifies a waiter (`Store.watchReceipt`). Their B guard re-reads only every 60 s
 * (`waitPollMaxMs`), beyond `WAIT_MS`, so B can only learn of A's finish from the notification. MySQL is polled.
 */
const NOTIFIES: Record<'postgres' | 'mysql' | 'redis', boolean> = { postgres: true, redis: true, mysql: false };

/** Process A: holds the claim until `finish()`; resolves the epoch ms of `in-handler`, then of `done`. */
function startA(backend: string, target: string, externalId: string) {
  const proc = spawn(process.execPath, tsChildArgs(child, [backend, target, externalId]), {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let seen = '';
  const checks = new Set<() => void>();
  proc.stdout?.on('data', (chunk: Buffer) => {
    seen += chunk.toString();
    for (const check of checks) check();
  });
  const marker = (name: string) =>
    new Promise<number>((resolve, reject) => {
      const check = () => {
        const match = new RegExp(`${name} (\\d+)`).exec(seen);
        if (match) resolve(Number(match[1]));
      };
      checks.add(check);
      proc.once('exit', (code) => {
        check();
        reject(new Error(`process A exited with ${code} before "${name}"`));
      });
    });
  const finish = () => proc.stdin?.write('finish\n');
  return { proc, inHandler: marker('in-handler'), done: marker('done'), finish, output: () => seen };
}

/**
 * B's view of the store: `waiting` resolves once B's wait has read A's claim still `processing` (on a notifying
 * store the wait subscribes before that read); `reads()` counts B's reads of the receipt, `notified()` tells
 * whether a subscription was woken.
 */
function observed(store: Store) {
  let markWaiting = () => {};
  const waiting = new Promise<void>((resolve) => {
    markWaiting = resolve;
  });
  let notified = false;
  let reads = 0;
  const view = new Proxy(store, {
    get(target, property) {
      if (property === 'find') {
        return async (key: RequestKey) => {
          reads++;
          const receipt = await target.find(key);
          if (receipt?.status === 'processing') markWaiting();
          return receipt;
        };
      }
      if (property === 'watchReceipt' && target.watchReceipt) {
        return async (key: RequestKey) => {
          const watch = await target.watchReceipt!(key);
          void watch.changed.then(() => {
            notified = true;
          });
          return watch;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { view, waiting, notified: () => notified, reads: () => reads };
}

const selected = new Set(backendsFromEnv());
// Every backend's suite is declared and the unselected ones are skipped, so a PAYONCE_BACKENDS without any of these
// three still leaves vitest a suite in this file (a file without one fails the run).
for (const backend of ['postgres', 'mysql', 'redis'] as const) {
  describe.skipIf(!selected.has(backend))(
    `${backend}: a duplicate in another process waits for the in-flight result`,
    () => {
      let namespace: { target: string; drop(): Promise<void> };
      let store: ClosableStore;
      beforeAll(async () => {
        namespace = await createSharedNamespace(backend);
        store = await openWaitStore(backend, namespace.target);
      });
      afterAll(async () => {
        await store?.close();
        await namespace?.drop();
      });

      const wake = NOTIFIES[backend] ? 'the store notifies it' : 'its polling reads it';
      it(
        `replays A's stored response to B once A completes (${wake}); 100 ms of waiting is too short`,
        async () => {
          expect(typeof store.watchReceipt === 'function').toBe(NOTIFIES[backend]);
          await waitOnce(backend, namespace.target, store);
        },
        WAIT_MS + 30_000,
      );
    },
  );
}

/**
 * A holds the claim in another process until told; B's 100 ms wait is refused; B's long wait reads A's claim in
 * flight, then A is told to finish, and B replays A's answer: woken by the notification on a notifying store (its
 * own re-read would come only after `WAIT_MS`), by a poll otherwise.
 */
async function waitOnce(backend: keyof typeof NOTIFIES, target: string, store: ClosableStore): Promise<void> {
  const externalId = `wait-${randomUUID()}`;
  const key = new RequestKey('wait-test', externalId);
  const a = startA(backend, target, externalId);
  try {
    await a.inHandler;
    let runsInB = 0;
    const handler = async () => {
      runsInB++;
      return { body: 'from B' };
    };

    const short = new IdempotencyGuard(store, { staleAfterMs: 60_000 });
    const shortStart = Date.now();
    await expect(short.run(key, handler, { waitForInFlightMs: 100 })).rejects.toBeInstanceOf(RequestInProgress);
    expect(Date.now() - shortStart).toBeGreaterThanOrEqual(95);

    const b = observed(store);
    const pollMaxMs = backend === 'mysql' ? 100 : 60_000;
    const guard = new IdempotencyGuard(b.view, { staleAfterMs: 60_000, waitPollMaxMs: pollMaxMs });
    const run = guard.run(key, handler, { waitForInFlightMs: WAIT_MS });
    await Promise.race([b.waiting, run]);
    a.finish();
    const outcome = await run;
    await a.done;

    expect(runsInB).toBe(0);
    expect(a.output().match(/in-handler/g)).toHaveLength(1);
    expect(outcome.isReplay).toBe(true);
    expect(outcome.response.status).toBe(201);
    expect(outcome.response.headers).toEqual({ 'content-type': 'text/plain' });
    expect(Buffer.from(outcome.response.body).toString()).toBe('from A, run 1');
    expect(b.notified()).toBe(NOTIFIES[backend]);
    // On a notifying store the wake ended the wait: B read the receipt once (A in flight) and never re-read it.
    if (NOTIFIES[backend]) expect(b.reads()).toBe(1);
  } finally {
    if (a.proc.exitCode === null) a.proc.kill();
  }
}

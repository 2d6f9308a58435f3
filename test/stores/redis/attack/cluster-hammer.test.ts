import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/payonce/src/core/clock.js';
import { IdempotencyGuard } from '../../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../../packages/payonce/src/core/request-key.js';
import { RedisStore } from '../../../../packages/payonce/src/stores/redis/redis-store.js';
import { startRedisCluster, type TestRedisCluster } from '../../../support/redis-cluster.js';
import { tsChildArgs } from '../../../support/ts-child.js';
import { keyOf } from './hammer-keys.js';

const child = fileURLToPath(new URL('./hammer-child.ts', import.meta.url));

interface Report {
  wins: Record<string, string[]>;
  replays: Record<string, string[]>;
  errors: Record<string, number>;
}

function runChild(config: object): Promise<Report> {
  const proc: ChildProcess = spawn(process.execPath, tsChildArgs(child, [JSON.stringify(config)]), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return once(proc, 'exit').then(() => JSON.parse(out.trim().split('\n').pop() ?? 'null') as Report);
}

describe('redis attack: a 3-master Cluster under 4 processes x 32 calls, then purge across masters', () => {
  let cluster: TestRedisCluster;
  let store: RedisStore;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    store = new RedisStore({ client: cluster.client(), prefix: 'ch:' });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  it('keeps one acknowledged completion per key, replays its bytes, and purge scopes by prefix and provider', async () => {
    const runId = randomUUID();
    const config = {
      clusterNodes: cluster.nodes,
      prefix: 'ch:',
      runId,
      startAt: Date.now() + 1_500,
      windowMs: 300,
      width: 6,
      concurrency: 32,
      durationMs: 5_000,
      staleAfterMs: 30,
      waitForInFlightMs: 40,
      maxHandlerMs: 60,
      failRate: 0.2,
      bigBodies: false,
    };
    const reports = await Promise.all(Array.from({ length: 4 }, () => runChild(config)));
    const indexes = new Set(reports.flatMap((r) => [...Object.keys(r.wins), ...Object.keys(r.replays)]));
    expect(indexes.size).toBeGreaterThan(10);
    for (const index of indexes) {
      const wins = reports.flatMap((r) => r.wins[index] ?? []);
      expect(wins.length, `key ${index}`).toBeLessThanOrEqual(1);
      const receipt = await store.find(keyOf(runId, Number(index)));
      if (receipt?.status !== 'completed') continue;
      const stored = createHash('sha256')
        .update(receipt.response?.body ?? new Uint8Array())
        .digest('base64');
      expect(wins, `key ${index}`).toEqual([stored]);
      for (const r of reports) for (const body of r.replays[index] ?? []) expect(body).toBe(stored);
    }
    const allowed = new Set(['boom', 'REQUEST_IN_PROGRESS', 'CLAIM_LOST']);
    for (const r of reports) expect(Object.keys(r.errors).filter((n) => !allowed.has(n))).toEqual([]);

    // Purge: another prefix on the same cluster and another provider are untouched.
    const clock = new ManualClock(Date.now() + 60_000);
    const other = new RedisStore({ client: cluster.client(), prefix: 'ch:x' });
    const kept = new RequestKey('p*?[0]\\:{x}ü', `kept-${runId}`);
    await new IdempotencyGuard(other, { clock }).run(kept, async () => ({ body: 'other prefix' }));
    const mine = new RequestKey('solo', `mine-${runId}`);
    const guard = new IdempotencyGuard(store, { clock });
    await guard.run(mine, async () => ({ body: 'solo' }));
    clock.advance(10);
    expect(await guard.purge({ olderThan: 5, provider: 'solo' })).toBe(1);
    expect(await store.find(mine)).toBeNull();
    const before = await guard.purge({ olderThan: 0 });
    expect(before).toBeGreaterThan(10);
    expect((await other.find(kept))?.status).toBe('completed');
    await other.close();
  }, 60_000);
});

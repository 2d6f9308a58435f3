import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../../../packages/payonce/src/stores/redis/redis-store.js';
import { tsChildArgs } from '../../../support/ts-child.js';
import { keyOf } from './hammer-keys.js';
import { type OwnRedis, startOwnRedis } from './own-redis.js';

const child = fileURLToPath(new URL('./hammer-child.ts', import.meta.url));

interface Report {
  pid: number;
  runs: number;
  wins: Record<string, string[]>;
  replays: Record<string, string[]>;
  errors: Record<string, number>;
  waits: number[];
  waitTimeouts: number;
}

interface Spawned {
  proc: ChildProcess;
  report: Promise<Report | null>;
}

function spawnChild(config: object): Spawned {
  const proc = spawn(process.execPath, tsChildArgs(child, [JSON.stringify(config)]), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const report = once(proc, 'exit').then(() => {
    const line = out.trim().split('\n').pop();
    return proc.signalCode === null && line ? (JSON.parse(line) as Report) : null;
  });
  return { proc, report };
}

/** Every key's own completions, replays and final receipt agree: one completion at most, bytes replayed exactly. */
async function checkReports(store: RedisStore, runId: string, reports: Report[], killed: boolean) {
  const indexes = new Set<string>();
  for (const r of reports) for (const i of [...Object.keys(r.wins), ...Object.keys(r.replays)]) indexes.add(i);
  expect(indexes.size).toBeGreaterThan(10);
  let contested = 0;
  for (const index of indexes) {
    const wins = reports.flatMap((r) => r.wins[index] ?? []);
    const replays = new Set(reports.flatMap((r) => r.replays[index] ?? []));
    expect(wins.length, `key ${index}: completions acknowledged`).toBeLessThanOrEqual(1);
    const receipt = await store.find(keyOf(runId, Number(index)));
    expect(receipt, `key ${index}: receipt`).not.toBeNull();
    if (receipt?.status !== 'completed') {
      expect(wins.length, `key ${index}: acknowledged but not completed`).toBe(0);
      expect(replays.size).toBe(0);
      continue;
    }
    const body = Buffer.from(receipt.response?.body ?? []);
    const stored = createHash('sha256').update(body).digest('base64');
    expect(body.toString('latin1').startsWith(`${index}|`)).toBe(true);
    if (wins.length === 1) expect(wins[0], `key ${index}: acknowledged body`).toBe(stored);
    else if (!killed) expect(wins.length, `key ${index}: completed without an acknowledged winner`).toBe(1);
    for (const body of replays) expect(body, `key ${index}: replayed bytes`).toBe(stored);
    if (replays.size > 0) contested++;
  }
  expect(contested).toBeGreaterThan(5);
  const errors: Record<string, number> = {};
  for (const r of reports) for (const [name, n] of Object.entries(r.errors)) errors[name] = (errors[name] ?? 0) + n;
  return errors;
}

describe('redis attack: 6 processes x 64 concurrent calls on shared hostile keys', () => {
  let redis: OwnRedis;
  let store: RedisStore;
  beforeAll(async () => {
    redis = await startOwnRedis();
    store = await RedisStore.connect(redis.url, { prefix: 'hammer:' });
  });
  afterAll(async () => {
    await store?.close();
    await redis?.kill();
  });

  const base = (runId: string) => ({
    url: redis.url,
    prefix: 'hammer:',
    runId,
    startAt: Date.now() + 1_000,
    concurrency: 64,
  });

  it('tiny lease: takeovers race with completions and fails; at most one acknowledged completion per key', async () => {
    const runId = randomUUID();
    const config = {
      ...base(runId),
      windowMs: 300,
      width: 6,
      durationMs: 7_000,
      staleAfterMs: 30,
      waitForInFlightMs: 40,
      maxHandlerMs: 70,
      failRate: 0.2,
    };
    const children = Array.from({ length: 6 }, () => spawnChild(config));
    const reports = (await Promise.all(children.map((c) => c.report))).filter((r): r is Report => r !== null);
    expect(reports).toHaveLength(6);
    const errors = await checkReports(store, runId, reports, false);
    const allowed = new Set(['boom', 'REQUEST_IN_PROGRESS', 'CLAIM_LOST']);
    expect(
      Object.keys(errors).filter((name) => !allowed.has(name)),
      JSON.stringify(errors),
    ).toEqual([]);
    expect(errors.CLAIM_LOST ?? 0).toBeGreaterThan(0);
  }, 60_000);

  it('long lease with waiting duplicates: no waiter sleeps through a finish (no lost wake-up)', async () => {
    const runId = randomUUID();
    // The safety re-read every max(1 s, waitPollMaxMs) is pushed past the 5 s wait budget, so a waiter's only way
    // to see a finish before its budget runs out is the finish notification: a lost wake-up ends as a timeout
    // (every handler ends within 60 ms, every lease lasts 60 s), whatever the machine's load.
    const config = {
      ...base(runId),
      windowMs: 250,
      width: 4,
      durationMs: 6_000,
      staleAfterMs: 60_000,
      waitForInFlightMs: 5_000,
      waitPollMaxMs: 60_000,
      maxHandlerMs: 60,
      failRate: 0.2,
      bigBodies: false,
    };
    const children = Array.from({ length: 6 }, () => spawnChild(config));
    const reports = (await Promise.all(children.map((c) => c.report))).filter((r): r is Report => r !== null);
    expect(reports).toHaveLength(6);
    await checkReports(store, runId, reports, false);
    const waits = reports.flatMap((r) => r.waits);
    expect(waits.length).toBeGreaterThan(100);
    const timeouts = reports.reduce((sum, r) => sum + r.waitTimeouts, 0);
    expect(timeouts, `${timeouts} of ${waits.length} waits slept through a finish`).toBe(0);
  }, 60_000);

  it('workers killed with SIGKILL mid-run: survivors still agree with every receipt', async () => {
    const runId = randomUUID();
    const config = {
      ...base(runId),
      windowMs: 400,
      width: 6,
      durationMs: 6_000,
      staleAfterMs: 50,
      waitForInFlightMs: 60,
      maxHandlerMs: 80,
      failRate: 0.1,
    };
    const children = Array.from({ length: 6 }, () => spawnChild(config));
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    for (const victim of children.slice(0, 2)) victim.proc.kill('SIGKILL');
    const reports = (await Promise.all(children.map((c) => c.report))).filter((r): r is Report => r !== null);
    expect(reports).toHaveLength(4);
    await checkReports(store, runId, reports, true);
  }, 60_000);

  it('purge of everything finished, racing claims and completions, never deletes a claim in progress', async () => {
    const runId = randomUUID();
    const config = {
      ...base(runId),
      windowMs: 300,
      width: 6,
      durationMs: 5_000,
      staleAfterMs: 60_000,
      waitForInFlightMs: 0,
      maxHandlerMs: 40,
      failRate: 0.2,
      bigBodies: false,
      purgeEveryMs: 5,
    };
    const reports = (await Promise.all(Array.from({ length: 4 }, () => spawnChild(config).report))).filter(
      (r): r is Report => r !== null,
    );
    expect(reports).toHaveLength(4);
    const errors: Record<string, number> = {};
    for (const r of reports) for (const [name, n] of Object.entries(r.errors)) errors[name] = (errors[name] ?? 0) + n;
    // With a 60 s lease nothing is taken over: a lost claim could only be a purged processing receipt.
    expect(errors.CLAIM_LOST ?? 0, JSON.stringify(errors)).toBe(0);
    const allowed = new Set(['boom', 'REQUEST_IN_PROGRESS']);
    expect(
      Object.keys(errors).filter((name) => !allowed.has(name)),
      JSON.stringify(errors),
    ).toEqual([]);
    expect(reports.reduce((n, r) => n + r.runs, 0)).toBeGreaterThan(100);
  }, 60_000);
});

/**
 * Waited duplicates: how long after the first call completes does a duplicate that waited for it
 * (`waitForInFlightMs`) get the replay? Per backend, `ITERATIONS` times: guard A (its own connection) claims a fresh
 * key and runs a 30 ms handler; guard B (another connection, another LISTEN/subscriber) calls the same key with
 * `waitForInFlightMs: 2000` while A runs; latency = B's answer − A's completion, in ms (both in this process, on
 * `performance.now()`). PostgreSQL and Redis (standalone and a 3-master Cluster started here) are woken by the store;
 * MySQL and SQLite poll (10 ms doubling to 100 ms); memory is in-process.
 * Writes `results/<date>-waited.json` and `.md`. Run: `npx tsx waited-duplicate.ts`.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import type { TestBackend } from '../../test/contract/backend.js';
import { backendFactories } from '../../test/contract/backends/index.js';
import { redisClusterBackend } from '../../test/contract/backends/redis-cluster.js';
import { writeNamedResult } from './lib/result-files.js';

const ITERATIONS = Number(process.env.WAITED_ITERATIONS ?? 60);
const HANDLER_MS = 30;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const BACKENDS: [string, string, () => Promise<TestBackend>][] = [
  ['postgres', 'PostgreSQL (LISTEN/NOTIFY)', async () => (await backendFactories.postgres())()],
  ['redis', 'Redis (pub/sub)', async () => (await backendFactories.redis())()],
  ['redis-cluster', 'Redis Cluster, 3 masters (sharded pub/sub)', redisClusterBackend],
  ['mysql', 'MariaDB (polling 10→100 ms)', async () => (await backendFactories.mysql())()],
  ['sqlite', 'SQLite WAL (polling 10→100 ms)', async () => (await backendFactories.sqlite())()],
  ['memory', 'MemoryStore (in-process)', async () => (await backendFactories.memory())()],
];

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function measure(open: () => Promise<TestBackend>) {
  const backend = await open();
  try {
    const a = new IdempotencyGuard(await backend.open(), { staleAfterMs: 60_000 });
    const b = new IdempotencyGuard(await backend.open(), { staleAfterMs: 60_000 });
    const latencies: number[] = [];
    let replays = 0;
    for (let i = 0; i < ITERATIONS + 3; i++) {
      const key = new RequestKey('bench-waited', randomUUID());
      let claimed!: () => void;
      const inHandler = new Promise<void>((resolve) => {
        claimed = resolve;
      });
      let completedAt = 0;
      const first = a
        .run(key, async () => {
          claimed();
          await sleep(HANDLER_MS);
          return { body: 'first' };
        })
        .then(() => {
          completedAt = performance.now();
        });
      await inHandler;
      await sleep(2);
      const outcome = await b.run(key, async () => ({ body: 'second' }), { waitForInFlightMs: 2_000 });
      const answeredAt = performance.now();
      await first;
      if (outcome.isReplay) replays++;
      // The first 3 warm the connections (LISTEN, subscriber, statement caches) and are not counted.
      if (i >= 3) latencies.push(answeredAt - completedAt);
    }
    latencies.sort((x, y) => x - y);
    return {
      n: latencies.length,
      replays: replays - 3,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      max: latencies.at(-1)!,
    };
  } finally {
    await backend.cleanup();
  }
}

const loadStart = loadavg()[0] ?? 0;
const rows: { id: string; name: string; n: number; replays: number; p50: number; p99: number; max: number }[] = [];
for (const [id, name, open] of BACKENDS) {
  const row = { id, name, ...(await measure(open)) };
  process.stderr.write(
    `${id}: p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms (${row.replays}/${row.n} replays)\n`,
  );
  rows.push(row);
}
const report = {
  generatedAt: new Date().toISOString(),
  iterations: ITERATIONS,
  handlerMs: HANDLER_MS,
  loadAverage: { start: loadStart, end: loadavg()[0] ?? 0 },
  rows,
};
const section = [
  '## Waited duplicates: latency after the first call completes',
  '',
  `Run of ${report.generatedAt} by \`npx tsx waited-duplicate.ts\`: per backend ${ITERATIONS} keys; guard A runs a ${HANDLER_MS} ms handler, guard B ` +
    "(its own connection and listener) calls the same key with `waitForInFlightMs: 2000` while A runs; latency = B's answer − A's completion. " +
    `**The machine was shared and loaded** (2 cores, seven engineers at work; load average ${report.loadAverage.start.toFixed(1)} at start, ` +
    `${report.loadAverage.end.toFixed(1)} at end), so the tails are the machine's as much as payonce's.`,
  '',
  '| backend | woken by | replays | p50 ms | p99 ms | max ms |',
  '|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.id} | ${r.name} | ${r.replays}/${r.n} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} |`,
  ),
  '',
  'Notified stores answer the duplicate one notification plus one claim read after the first completes; polled stores answer within ' +
    "their polling interval (10 ms doubling to 100 ms, the guard's `waitPollMaxMs`) plus a read, so their latency depends on how long the " +
    'first call ran (a 30 ms handler is met by the 10/20/40 ms polls).',
].join('\n');
process.stderr.write(`wrote ${await writeNamedResult('waited', report.generatedAt, section, report)}\n`);
process.exit(0);

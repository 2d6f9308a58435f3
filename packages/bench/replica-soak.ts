/**
 * Replica soak: N `payonce serve` replicas on ONE PostgreSQL database, the sandbox provider sending its
 * webhooks through a round-robin forwarder, and customer flows spread over the replicas round-robin (duplicate
 * creates and checkouts sent to two replicas at once, second tabs, duplicated webhooks).
 *
 * 1. Throughput by replica count: 1, 2 and 3 replicas, alternately, `ROUNDS` rounds of `STEP_S` seconds each, no
 *    kills; completed checkouts per second and checkout latency.
 * 2. Soak: 3 replicas under the same load for `SOAK_S` seconds (≥ 60), a random replica SIGKILLed every 3–5 s and
 *    restarted by its supervisor; then the invariants (replicas/invariants.ts).
 *
 * Writes `results/<date>-replicas.json` and `.md`. Run: `npm run build && npx tsx replica-soak.ts` (about 3 min).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import pg from 'pg';
import { latestResult, writeNamedResult } from './lib/result-files.js';
import { checkInvariants, type InvariantResult } from './replicas/invariants.js';
import { closeLoadAgent, newLoadRecord, runLoad } from './replicas/load.js';
import { type ReplicaSet, startReplicaSet } from './replicas/replica-set.js';
import { type ReplicaSoakReport, renderReplicaSection } from './replicas/section.js';

const POSTGRES_URL = process.env.PAYONCE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const STEP_S = Number(process.env.SOAK_STEP_S ?? 15);
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 2);
const SOAK_S = Math.max(60, Number(process.env.SOAK_S ?? 60));
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);
const log = (line: string) => process.stderr.write(`${line}\n`);

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh schema, its `DATABASE_URL` and pg connection, and a drop. */
async function namespace() {
  const schema = `payonce_soak_${randomBytes(5).toString('hex')}`;
  await admin(`create schema ${schema}`);
  const options = `-c search_path=${schema}`;
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', options);
  return {
    url: url.toString(),
    connection: { connectionString: POSTGRES_URL, options },
    drop: () => admin(`drop schema if exists ${schema} cascade`),
  };
}

const quantile = (values: readonly number[], q: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/**
 * Waits until the work the load left behind is done: the sandbox idle (no delivery in flight or scheduled) and no
 * outbox job queued or running, twice in a row, for up to 5 minutes. Returns how long it took (ms).
 */
async function settle(set: ReplicaSet, connection: { connectionString: string; options: string }): Promise<number> {
  const startedAt = Date.now();
  const client = new pg.Client(connection);
  await client.connect();
  try {
    let quiet = 0;
    while (quiet < 2 && Date.now() - startedAt < 300_000) {
      const idle = await set.sandbox.controls.idle(10_000);
      const busy = await client.query<{ n: string }>(
        "select count(*) as n from payonce_outbox where status in ('queued', 'running')",
      );
      quiet = idle && Number(busy.rows[0]?.n ?? 1) === 0 ? quiet + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    return Date.now() - startedAt;
  } finally {
    await client.end();
  }
}

async function throughputStep(replicas: number) {
  const ns = await namespace();
  const set = await startReplicaSet(ns.url, replicas);
  try {
    const record = newLoadRecord();
    const elapsedMs = await runLoad(set, record, STEP_S * 1_000, CONCURRENCY);
    return {
      replicas,
      checkoutsPerSec: record.checkedOut / (elapsedMs / 1_000),
      requestsPerSec: record.requests / (elapsedMs / 1_000),
      p50Ms: quantile(record.checkoutMs, 0.5),
      p99Ms: quantile(record.checkoutMs, 0.99),
      errorsOutsideOutages: record.errorsOutsideOutages.length,
    };
  } finally {
    await set.stop();
    await ns.drop();
  }
}

async function soak(): Promise<ReplicaSoakReport['soak']> {
  const ns = await namespace();
  const set = await startReplicaSet(ns.url, 3);
  try {
    const record = newLoadRecord();
    let kills = 0;
    let stopKilling = false;
    const killer = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      while (!stopKilling) {
        set.kill(Math.floor(Math.random() * set.urls.length));
        kills += 1;
        await new Promise((resolve) => setTimeout(resolve, 3_000 + Math.random() * 2_000));
      }
    })();
    const elapsedMs = await runLoad(set, record, SOAK_S * 1_000, CONCURRENCY);
    stopKilling = true;
    await killer;
    log(`soak: load done after ${(elapsedMs / 1000).toFixed(0)} s, ${kills} kills; settling`);
    const settleMs = await settle(set, ns.connection);
    log(`soak: settled in ${(settleMs / 1000).toFixed(0)} s`);
    const invariants: InvariantResult[] = await checkInvariants(ns.connection, set, record);
    const restartMs = set.outages.filter((o) => o.toMs !== null).map((o) => o.toMs! - o.fromMs);
    return {
      replicas: 3,
      durationS: elapsedMs / 1_000,
      concurrency: CONCURRENCY,
      kills,
      restarts: restartMs.length,
      restartP50Ms: quantile(restartMs, 0.5),
      flows: record.flows,
      checkedOut: record.checkedOut,
      requests: record.requests,
      checkoutsPerSec: record.checkedOut / (elapsedMs / 1_000),
      duplicateReplays: record.duplicateReplays,
      errorsInOutages: record.errorsInOutages,
      gaveUpInProgress: record.gaveUpInProgress,
      deliveries: set.sandbox.controls.deliveries().length,
      settleS: settleMs / 1_000,
      invariants,
    };
  } finally {
    await set.stop();
    await ns.drop();
  }
}

const started = Date.now();
const loadStart = loadavg()[0] ?? 0;
const throughput: Array<ReplicaSoakReport['throughput'][number]> = [];
let throughputFrom: string | undefined;
// SOAK_KEEP_THROUGHPUT=1 re-runs only the soak and keeps the throughput steps of the latest results/*-replicas.json.
if (process.env.SOAK_KEEP_THROUGHPUT === '1') {
  const previous = JSON.parse(await readFile(latestResult('replicas', 'json'), 'utf8')) as ReplicaSoakReport;
  throughput.push(...previous.throughput);
  throughputFrom = previous.throughputFrom ?? previous.generatedAt;
}
for (let round = 1; round <= (throughput.length > 0 ? 0 : ROUNDS); round++) {
  for (const replicas of round % 2 === 1 ? [1, 2, 3] : [3, 2, 1]) {
    const step = await throughputStep(replicas);
    log(
      `round ${round}: ${replicas} replica(s) ${step.checkoutsPerSec.toFixed(1)} checkouts/s, p99 ${step.p99Ms.toFixed(0)} ms`,
    );
    throughput.push({ round, ...step });
  }
}
const soakResult = await soak();
for (const inv of soakResult.invariants)
  log(`${inv.violations === 0 ? 'ok  ' : 'FAIL'} ${inv.name}: ${inv.violations}/${inv.checked}`);
await closeLoadAgent();
const report: ReplicaSoakReport = {
  generatedAt: new Date().toISOString(),
  durationS: (Date.now() - started) / 1_000,
  loadAverage: { start: loadStart, end: loadavg()[0] ?? 0 },
  stepS: STEP_S,
  concurrency: CONCURRENCY,
  ...(throughputFrom === undefined ? {} : { throughputFrom }),
  throughput,
  soak: soakResult,
};
log(
  `wrote ${await writeNamedResult('replicas', report.generatedAt, renderReplicaSection(report), report)} in ${report.durationS.toFixed(0)} s`,
);
process.exit(soakResult.invariants.every((i) => i.violations === 0) ? 0 : 1);

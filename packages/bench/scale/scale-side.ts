/**
 * A side of the scale targets (protocol: `lib/side-protocol.ts`): payonce's `guard.run` on
 * unique keys from 8 concurrent callers, on PostgreSQL or MariaDB, against a receipts table that holds `--stored N`
 * finished receipts when the timed run starts — or none (`--stored 0`).
 *
 *   node --expose-gc --import tsx scale/scale-side.ts --stored 1000000 [--batched] [--concurrency 8]
 *
 * The backend is the one of `BENCH_NS` (`postgres` or `mysql`).
 * - `--stored 0`: the harness's freshly emptied `BENCH_NS` table; after the untimed warm-up the side truncates it
 *   again, so the timed run starts on an empty table.
 * - `--stored N`: the long-lived namespace `payonce_scale_<N>` of `seeded-namespace.ts` (same server as `BENCH_NS`),
 *   seeded once per bench run with N realistic finished receipts (by `prepare()` of `targets/scale.ts`, or by
 *   the first side that finds it missing — untimed either way). The side holds its lock, runs, and deletes every
 *   row it wrote (try/finally), so every side starts from exactly N rows and the harness's `BENCH_NS` is left
 *   untouched. On MariaDB it also deletes its warm-up's rows before the timed run (which starts at N rows); on
 *   PostgreSQL the timed run starts at N plus the warm-up's rows (`timedRun` says why; `storedAtStart` tells).
 *   `cleanup()` of the targets file drops the namespace at the end.
 *
 * Both sides open the store exactly as `payonceSubject(backend, { batched })` does (`openStore`: static factory, a
 * pool of 10, `batching` when `--batched`), and deliver the same kind of keys: `realistic-keys.ts`'s provider mix
 * and external-id shapes, random within the key space (so a claim lands among the stored receipts, not after
 * them), with the payload and handler response of the in-process rows. On PostgreSQL the warm-up goes on until the
 * full-page writes that follow a checkpoint have settled (`wal-settle.ts`: otherwise the 1M side would time the
 * page images of ~10 000 primary-key leaves, the first seconds of a checkpoint cycle, and the empty side almost
 * none), and each side runs a CHECKPOINT before it exits (`settle`), so neither side pays for writing out the
 * other side's dirty pages. The result's notes carry the rows stored at the start, the table's size on disk, the
 * rows completed by the timed run (must equal the deliveries), the seeding time when this side seeded, and on
 * PostgreSQL the settling warm-up (deliveries, seconds, settled or not) and the timed run's WAL bytes, page images
 * per delivery and checkpoints.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { RowDataPacket } from 'mysql2/promise';
import { RequestInProgress } from 'payonce/internal/core/errors.js';
import { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import { type Deliver, measureUnique, type RunSample } from '../lib/measure.js';
import type { NamespaceInfo } from '../lib/namespaces.js';
import { collectGarbage, WARMUP_MAX_MS } from '../lib/run-rows.js';
import { emitSideResult, quickRun, type SideResult, sideNamespace } from '../lib/side-protocol.js';
import { HANDLER_RESPONSE, type HandlerCounter, payloadOf } from '../lib/subject.js';
import { openStore } from '../subjects/payonce.js';
import { mysqlConnection, pgClient } from './drivers.js';
import { realisticKey } from './realistic-keys.js';
import { measureTable, type ScaleBackend, withSeeded } from './seeded-namespace.js';
import { FULL_SIZES, QUICK_SIZES, QUICK_STORED_MAX, type SideSizes } from './side-sizes.js';
import { type SettleReport, type WalSpan, walPoint, walSpan, warmUntilSteady } from './wal-settle.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The schema (PostgreSQL) or database (MariaDB) a namespace's connection points at. */
function namespaceName(info: NamespaceInfo): string {
  if (info.backend === 'postgres') {
    const match = /search_path=(\S+)/.exec(info.postgres?.options ?? '');
    if (!match?.[1]) throw new Error(`BENCH_NS has no search_path: ${info.postgres?.options}`);
    return match[1];
  }
  return new URL(info.mysqlUrl!).pathname.slice(1);
}

/** Empties the harness's namespace (the `--stored 0` side, after its warm-up). */
async function truncate(info: NamespaceInfo): Promise<void> {
  if (info.backend === 'postgres') {
    const client = await pgClient(info.postgres!);
    await client.connect();
    try {
      await client.query('truncate payonce_receipts');
    } finally {
      await client.end();
    }
    return;
  }
  const connection = await mysqlConnection(info.mysqlUrl!);
  try {
    await connection.query('truncate table payonce_receipts');
  } finally {
    await connection.end();
  }
}

/**
 * PostgreSQL: a CHECKPOINT before the side exits, so the dirty pages one side made (its deliveries, the 1M side's
 * DELETE and VACUUM) are written out by that side, not during the next side's run. MariaDB has no such statement;
 * nothing is done there.
 */
async function settle(info: NamespaceInfo): Promise<void> {
  if (info.backend !== 'postgres') return;
  const client = await pgClient(info.postgres!);
  await client.connect();
  try {
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
}

/** Completed rows claimed after `sinceMs` (the timed run's own rows). */
async function completedSince(backend: ScaleBackend, info: NamespaceInfo, sinceMs: number): Promise<number> {
  const text = `select count(*) as n from payonce_receipts where status = 'completed' and claimed_at > `;
  if (backend === 'postgres') {
    const client = await pgClient(info.postgres!);
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(`${text}$1`, [sinceMs]);
      return Number(rows[0]!.n);
    } finally {
      await client.end();
    }
  }
  const connection = await mysqlConnection(info.mysqlUrl!);
  try {
    const [rows] = await connection.query<RowDataPacket[]>(`${text}?`, [sinceMs]);
    return Number(rows[0]!.n);
  } finally {
    await connection.end();
  }
}

/** guard.run on realistic unique keys: `id` → a key of `realistic-keys.ts` (tagged by this process). */
function deliverer(guard: IdempotencyGuard, counter: HandlerCounter): Deliver {
  const tag = randomBytes(6).toString('hex');
  return async (id) => {
    const { provider, externalId } = realisticKey(tag, id);
    try {
      const outcome = await guard.run(
        new RequestKey(provider, externalId),
        () => {
          counter.runs++;
          return HANDLER_RESPONSE;
        },
        { payload: payloadOf(externalId) },
      );
      return outcome.isReplay ? 'replayed' : 'ran';
    } catch (error) {
      if (error instanceof RequestInProgress) return 'in-progress';
      throw error;
    }
  };
}

interface Timed {
  readonly sample: RunSample;
  readonly storedAtStart: number;
  readonly tableBytes: number;
  readonly completedRows: number;
  /** PostgreSQL: the settling warm-up and the timed run's WAL (`wal-settle.ts`). */
  readonly wal: { readonly settle: SettleReport; readonly run: WalSpan } | null;
}

/**
 * Warm-up (on PostgreSQL until the full-page writes have settled), `reset` when given, then the timed run on `info`;
 * `reset` puts the table back to its starting rows (untimed). The stored side on PostgreSQL passes none: deleting
 * and vacuuming the warm-up's rows changed pages anew and brought page images back into the timed run (3.1–3.3 KB
 * of WAL and 0.18–0.20 images per delivery after windows of ≤ 2 KB; notes/limits.md), so its
 * timed run starts with the seeded receipts plus the warm-up's, which `storedAtStart` reports. No CHECKPOINT
 * between the warm-up and the timed run.
 */
async function timedRun(
  backend: ScaleBackend,
  info: NamespaceInfo,
  options: { batched: boolean; concurrency: number; sizes: SideSizes },
  reset: (() => Promise<unknown>) | null,
): Promise<Timed> {
  const counter: HandlerCounter = { runs: 0 };
  const opened = await openStore(info, { batched: options.batched });
  try {
    const deliver = deliverer(new IdempotencyGuard(opened.store), counter);
    await measureUnique(deliver, options.sizes.warmupKeys, options.concurrency, 'w-', WARMUP_MAX_MS);
    const settled =
      backend === 'postgres'
        ? await warmUntilSteady(deliver, info, options.concurrency, options.sizes.settleMaxMs)
        : null;
    if (reset) await reset();
    const table = await measureTable(backend, namespaceName(info));
    collectGarbage();
    const before = backend === 'postgres' ? await walPoint(info) : null;
    const startedMs = Date.now() - 1;
    const sample = await measureUnique(deliver, options.sizes.keys, options.concurrency, 'a-', options.sizes.maxMs);
    const after = before ? await walPoint(info) : null;
    const completedRows = await completedSince(backend, info, startedMs);
    const wal = settled && before && after ? { settle: settled, run: walSpan(before, after, sample.deliveries) } : null;
    return { sample, storedAtStart: table.rows, tableBytes: table.bytes, completedRows, wal };
  } finally {
    await opened.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      stored: { type: 'string' },
      batched: { type: 'boolean', default: false },
      concurrency: { type: 'string', default: '8' },
    },
  });
  const ns = sideNamespace();
  if (ns.backend !== 'postgres' && ns.backend !== 'mysql') {
    throw new Error(`scale-side runs on postgres or mysql, BENCH_NS is ${ns.backend}`);
  }
  const backend: ScaleBackend = ns.backend;
  const requested = Number(values.stored ?? Number.NaN);
  if (!Number.isInteger(requested) || requested < 0) throw new Error(`--stored must be a count ≥ 0: ${values.stored}`);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency: ${values.concurrency}`);
  const sizes = quickRun() ? QUICK_SIZES : FULL_SIZES;
  const stored = quickRun() ? Math.min(requested, QUICK_STORED_MAX) : requested;
  const options = { batched: values.batched === true, concurrency, sizes };

  let seedSeconds = 0;
  const timed =
    stored === 0
      ? await timedRun(backend, ns, options, () => truncate(ns))
      : await withSeeded(backend, stored, log, (seeded, resetToSeed) => {
          seedSeconds = seeded.seedSeconds;
          return timedRun(backend, seeded.info, options, backend === 'postgres' ? null : resetToSeed);
        });
  await settle(ns);
  const { sample } = timed;
  const unexpected = sample.deliveries - sample.results.ran - sample.errors;
  const result: SideResult = {
    opsPerSec: sample.opsPerSec,
    p50Ms: sample.p50Ms,
    p99Ms: sample.p99Ms,
    operations: sample.deliveries,
    errors: sample.errors + unexpected + Math.abs(timed.completedRows - sample.results.ran),
    firstError:
      sample.firstError ??
      (unexpected > 0
        ? `${unexpected} unique deliveries were not run (replayed or in progress)`
        : timed.completedRows !== sample.results.ran
          ? `${sample.results.ran} deliveries ran but ${timed.completedRows} rows are completed`
          : null),
    peakRssBytes: process.resourceUsage().maxRSS * 1_024,
    notes: {
      storedAtStart: timed.storedAtStart,
      tableMB: Math.round(timed.tableBytes / 2 ** 20),
      completedRows: timed.completedRows,
      ...(seedSeconds > 0 ? { seedSeconds: Math.round(seedSeconds * 10) / 10 } : {}),
      batched: options.batched ? 'yes' : 'no',
      ...(timed.wal
        ? {
            settleDeliveries: timed.wal.settle.deliveries,
            settleSeconds: timed.wal.settle.seconds,
            settled: timed.wal.settle.steady ? 'yes' : 'no',
            walBytesPerDelivery: timed.wal.run.walBytesPerDelivery,
            fullPageImagesPerDelivery: timed.wal.run.fullPageImagesPerDelivery,
            checkpointsDuringRun: timed.wal.run.checkpoints,
          }
        : {}),
    },
  };
  log(
    `  ${backend} stored=${timed.storedAtStart}${options.batched ? ' batched' : ''}: ${sample.opsPerSec.toFixed(0)}/s` +
      ` p50 ${sample.p50Ms.toFixed(2)} ms p99 ${sample.p99Ms.toFixed(2)} ms (${sample.deliveries} deliveries)`,
  );
  emitSideResult(result);
}

await main();

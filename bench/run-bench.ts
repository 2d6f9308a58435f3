/**
 * `npm run bench`: payonce against the hand-written bare minimum and against peer libraries, side by side, in one
 * process run, on the machine's PostgreSQL, MariaDB, Redis and a SQLite file (issue 6). Writes `bench/RESULTS.md`
 * and `bench/results.json`. `BENCH_QUICK=1` is a smoke run with tiny sizes, written to `bench/out/` instead.
 * `BENCH_ONLY=postgres,redis/` keeps the rows whose id contains one of the strings (development only).
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { type HttpRouteName, type HttpRow, httpRow } from './http/http-routes.js';
import { type HttpSizes, runHttp } from './http/run-http.js';
import { runInChild } from './lib/child-rows.js';
import { withKeptSections } from './lib/kept-sections.js';
import { type BenchBackend, createNamespace, type Namespace } from './lib/namespaces.js';
import { CAUSES, NOTES } from './lib/notes.js';
import { measurePostgresCosts, type PostgresCosts } from './lib/pg-costs.js';
import { updateReadme } from './lib/readme-section.js';
import { buildReport, renderMarkdown } from './lib/report.js';
import { runInProcess, type WorkloadSizes } from './lib/run-rows.js';
import type { Subject } from './lib/subject.js';
import { collectVersions } from './lib/versions.js';
import { bareSubject, bareTransactionSubject } from './subjects/bare.js';
import { payonceSubject, payonceTransactionSubject } from './subjects/payonce.js';
import { nodeIdempotencyMemory, nodeIdempotencyRedis, powertoolsRedis } from './subjects/peers.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ONLY = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const OUT_DIR = process.env.BENCH_OUT ?? join(import.meta.dirname, QUICK ? 'out' : '.');

const SIZES: WorkloadSizes = QUICK
  ? {
      uniqueKeys: 1_000,
      uniqueMaxMs: 5_000,
      concurrency: 8,
      stormKeys: 100,
      stormCopies: 10,
      stormConcurrency: 8,
      stormMaxMs: 5_000,
      warmup: 100,
      reps: 1,
    }
  : {
      uniqueKeys: 20_000,
      uniqueMaxMs: 4_000,
      concurrency: 8,
      stormKeys: 1_000,
      stormCopies: 10,
      stormConcurrency: 8,
      stormMaxMs: 2_500,
      // Each repetition runs in a fresh process: warm up for WARMUP_MAX_MS (1 s) so the JIT reaches steady state.
      warmup: 50_000,
      reps: 3,
    };

const HTTP_SIZES: HttpSizes = QUICK
  ? {
      durationMs: 1_000,
      requests: 20_000,
      concurrency: 8,
      stormKeys: 100,
      stormMaxMs: 3_000,
      stormCopies: 10,
      warmup: 100,
      reps: 1,
    }
  : {
      durationMs: 1_200,
      requests: 30_000,
      concurrency: 8,
      stormKeys: 200,
      stormMaxMs: 2_000,
      stormCopies: 10,
      warmup: 200,
      reps: 3,
    };

const BACKENDS: readonly BenchBackend[] = ['memory', 'sqlite', 'sqlite-normal', 'postgres', 'mysql', 'redis'];

const SUBJECTS: readonly Subject[] = [
  ...BACKENDS.flatMap((backend) => [bareSubject(backend), payonceSubject(backend)]),
  bareTransactionSubject(),
  payonceTransactionSubject(),
  nodeIdempotencyMemory,
  nodeIdempotencyRedis,
  powertoolsRedis,
];

const HTTP_ROWS: readonly HttpRow[] = [
  ...(['fastify-bare', 'fastify-guard', 'fastify-adapter', 'express-bare', 'express-adapter'] as HttpRouteName[]).map(
    (route) => httpRow(route, 'postgres'),
  ),
  ...(['fastify-bare', 'fastify-guard', 'fastify-adapter'] as HttpRouteName[]).map((route) => httpRow(route, 'redis')),
  ...(
    [
      'fastify-bare',
      'fastify-guard',
      'fastify-adapter',
      'express-bare',
      'express-adapter',
      'express-idempotency',
    ] as HttpRouteName[]
  ).map((route) => httpRow(route, 'memory')),
];

const log = (line: string) => process.stderr.write(`${line}\n`);
const selected = <T extends { id: string }>(items: readonly T[]): T[] =>
  ONLY.length === 0 ? [...items] : items.filter((item) => ONLY.some((part) => item.id.includes(part)));

/** Formats the written reports as `npx biome check` expects (tables aligned); a failure only warns. */
function formatWithBiome(files: readonly string[]): Promise<void> {
  const biome = join(import.meta.dirname, '..', 'node_modules', '.bin', 'biome');
  return new Promise((resolve) => {
    execFile(biome, ['format', '--write', ...files], (error) => {
      if (error) log(`biome format failed (reports are still written): ${error.message}`);
      resolve();
    });
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadStart = os.loadavg()[0] ?? 0;
  const subjects = selected(SUBJECTS);
  const httpRows = selected(HTTP_ROWS);
  const needed = new Set<BenchBackend>([...subjects, ...httpRows].map((s) => s.backend));
  log(`payonce bench${QUICK ? ' (quick)' : ''}: ${subjects.length} in-process rows, ${httpRows.length} HTTP rows`);
  const versions = await collectVersions();
  const namespaces = new Map<BenchBackend, Namespace>();
  try {
    for (const backend of needed) namespaces.set(backend, await createNamespace(backend));
    log('(a) unique keys and (b) duplicate storm');
    const inProcess = await runInProcess(subjects, namespaces, SIZES, log, runInChild);
    let postgresCosts: PostgresCosts | null = null;
    const postgres = namespaces.get('postgres');
    if (postgres && subjects.some((s) => s.id === 'postgres/payonce-tx')) {
      postgresCosts = await measurePostgresCosts(postgres.info);
      log(
        `  postgres: select 1 ${postgresCosts.roundTripsPerSec.toFixed(0)}/s, autocommit insert ${postgresCosts.autocommitInsertsPerSec.toFixed(0)}/s, commit ≈ ${postgresCosts.commitInRoundTrips.toFixed(1)} round trips`,
      );
    }
    log('(c) signed webhook intake over HTTP');
    const http = await runHttp(httpRows, namespaces, HTTP_SIZES, log);
    const baselines = new Map(httpRows.map((row) => [row.id, row.baseline]));
    const report = buildReport(
      {
        rows: [...inProcess, ...http],
        generatedAt: new Date(),
        quick: QUICK,
        durationSec: (Date.now() - started) / 1_000,
        loadAverage: { start: loadStart, end: os.loadavg()[0] ?? 0 },
        sizes: { inProcess: SIZES, http: HTTP_SIZES, only: ONLY },
        versions,
        postgresCosts,
      },
      baselines,
    );
    await mkdir(OUT_DIR, { recursive: true });
    await writeFile(join(OUT_DIR, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
    const resultsPath = join(OUT_DIR, 'RESULTS.md');
    await writeFile(resultsPath, await withKeptSections(renderMarkdown(report, NOTES, CAUSES), resultsPath));
    // Biome formats the committed reports; it ignores bench/out/ and paths outside the repository.
    if (process.env.BENCH_OUT === undefined && !QUICK) {
      await formatWithBiome([join(OUT_DIR, 'RESULTS.md'), join(OUT_DIR, 'results.json')]);
    }
    // A full run of every row into bench/ also refreshes the README's Performance numbers (between its markers).
    if (!QUICK && ONLY.length === 0 && process.env.BENCH_OUT === undefined) {
      const readme = join(import.meta.dirname, '..', 'README.md');
      log(
        (await updateReadme(readme, report))
          ? 'updated README.md Performance numbers'
          : 'README.md has no bench markers',
      );
    }
    for (const t of report.targets) log(`${t.met ? 'met   ' : 'MISSED'} ${t.target}: ${t.subject} ${t.measured}`);
    log(`wrote ${join(OUT_DIR, 'RESULTS.md')} and results.json in ${((Date.now() - started) / 1_000).toFixed(0)} s`);
  } finally {
    for (const ns of namespaces.values()) await ns.drop().catch((error) => log(`drop failed: ${String(error)}`));
  }
}

await main();

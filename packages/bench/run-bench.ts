/**
 * `npm run bench`: every target of `targets/*.ts` measured pair by pair (`lib/pairs.ts`), on the machine's
 * PostgreSQL, MariaDB, Redis and SQLite files, in one run. A full run writes `results/<date>.json` (every pair and
 * side) and `results/<date>.md` (a short summary); it rewrites no other file. A full run first waits (at most 3 min) for
 * the 1-minute load average to fall below 1.5, so what ran before it does not land on its first rows (`lib/quiet-start.ts`),
 * and every target (but in a smoke run) waits until the host's CPUs are idle again (`lib/idle-host.ts`).
 *
 *   npm run bench                              # full run (every target, physical limits, notes)
 *   npm run bench -- --only redis-vs-bare,postgres-batched-*   # just those targets, into out/
 *   npm run bench -- --list                    # the target ids
 *   BENCH_QUICK=1 npm run bench                # smoke run (tiny sides, 1 pair) into out/
 *
 * Every payonce module runs from dist/, the compiled package (`npm run bench` builds it first; `lib/side-node-args.ts`).
 * BENCH_OUT=<dir> writes elsewhere; BENCH_VERBOSE=1 echoes every side's stderr; BENCH_PAIRS=N overrides the pairs of
 * targets that do not fix their own.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { basename, join } from 'node:path';
import { parseBenchArgs, selectTargets } from './lib/bench-args.js';
import { type BenchResults, targetResult } from './lib/bench-results.js';
import { TargetFileSetUp } from './lib/file-set-up.js';
import { hostCpuTicks, waitForIdleHost } from './lib/idle-host.js';
import { type LimitsSection, physicalLimitsSection } from './lib/limits-section.js';
import { type BenchBackend, createNamespace, type Namespace } from './lib/namespaces.js';
import { CAUSES } from './lib/notes.js';
import { runTarget } from './lib/pairs.js';
import { measurePostgresCosts, type PostgresCosts } from './lib/pg-costs.js';
import { waitForQuietStart } from './lib/quiet-start.js';
import { OUT_DIR, RESULTS_DIR, resultPath } from './lib/result-files.js';
import { renderSummary } from './lib/results-markdown.js';
import { runSide } from './lib/run-side.js';
import { payonceNodeEnv, staleMeasuredFiles, usesCompiledPayonce } from './lib/side-node-args.js';
import { loadTargets } from './lib/target-files.js';
import { collectVersions } from './lib/versions.js';

// Every side runs as a production deployment would (both sides of a pair inherit it): payonce's nested-claim
// check, a development check on Node.js < 24, is then off (GuardOptions.detectNestedClaims).
process.env.NODE_ENV ??= 'production';
// BENCH_SOURCES=tsx: every process of this run (the sides inherit the environment) loads payonce from src/.
Object.assign(process.env, payonceNodeEnv());
const QUICK = process.env.BENCH_QUICK === '1';
const log = (line: string) => process.stderr.write(`${line}\n`);
const loadAverage = () => os.loadavg()[0] ?? 0;

/** Formats the written reports as `npx biome check` expects (tables aligned); a failure only warns. */
function formatWithBiome(files: readonly string[]): Promise<void> {
  const biome = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'biome');
  return new Promise((resolve) => {
    execFile(biome, ['format', '--write', ...files], (error) => {
      if (error) log(`biome format failed (reports are still written): ${error.message}`);
      resolve();
    });
  });
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  const loaded = await loadTargets();
  for (const f of loaded.files) log(`${f.file}: ${f.count} targets`);
  for (const problem of loaded.problems) log(`! ${problem}`);
  if (args.list) {
    for (const t of loaded.targets) process.stdout.write(`${t.id.padEnd(44)} ${t.title}\n`);
    return;
  }
  const stale = usesCompiledPayonce() ? staleMeasuredFiles() : [];
  if (stale.length > 0) {
    log(
      `dist/ is older than ${stale.length} source files (first: ${stale[0]}): run \`npm run build\` at the repository root (npm run bench does)`,
    );
    process.exitCode = 2;
    return;
  }
  const targets = selectTargets(loaded.targets, args.only);
  const full = args.only === null && !QUICK;
  const outDir = process.env.BENCH_OUT ?? (full ? RESULTS_DIR : OUT_DIR);
  // Even: each side runs first in half of a target's pairs (lib/pairs.ts `firstOf`).
  const defaultPairs = Number(process.env.BENCH_PAIRS ?? (QUICK ? 1 : 6));
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  if (full) {
    await waitForQuietStart({ load: loadAverage, sleep, log, below: 1.5, maxMs: 180_000, pollMs: 5_000 });
  }
  const started = Date.now();
  const loadStart = loadAverage();
  log(
    `payonce bench${QUICK ? ' (quick)' : ''}${args.only ? ` --only ${args.only.join(',')}` : ''}: ${targets.length} targets, ` +
      `${defaultPairs} pairs each unless a target says, load average ${loadStart.toFixed(2)}, writing to ${outDir}`,
  );
  const versions = await collectVersions();
  const namespaces = new Map<BenchBackend, Promise<Namespace>>();
  const namespace = (backend: BenchBackend) => {
    let ns = namespaces.get(backend);
    if (!ns) {
      ns = createNamespace(backend);
      namespaces.set(backend, ns);
    }
    return ns;
  };
  const echo = process.env.BENCH_VERBOSE === '1' ? log : undefined;
  const setUp = new TargetFileSetUp(
    loaded.hooks,
    targets.map((t) => t.id),
    log,
  );
  try {
    const results = [];
    for (const [i, target] of targets.entries()) {
      await setUp.before(target.id);
      // What the previous target (or this one's set-up) left running must not land on this target's first pairs.
      if (!QUICK)
        await waitForIdleHost({ ticks: hostCpuTicks, sleep, log, minIdle: 0.9, windowMs: 1_000, maxMs: 30_000 });
      const elapsed = (Date.now() - started) / 1_000;
      const eta = i === 0 ? '' : `, about ${Math.round(((elapsed / i) * (targets.length - i)) / 60)} min left`;
      log(`[${i + 1}/${targets.length}] ${Math.round(elapsed)} s in${eta}, load average ${loadAverage().toFixed(2)}`);
      const run = await runTarget(target, {
        namespace,
        runSide: (side, ns) => runSide(side, { ns, echo }),
        log,
        defaultPairs,
      });
      results.push(targetResult(run));
      await setUp.after(target.id);
    }
    let postgresCosts: PostgresCosts | null = null;
    if (targets.some((t) => t.id === 'postgres-tx')) {
      postgresCosts = await measurePostgresCosts((await namespace('postgres')).info).catch((error: unknown) => {
        log(`postgres round-trip probe failed: ${String(error)}`);
        return null;
      });
    }
    // The physical limits belong to a full run (and a smoke run, to check they work), not to a rerun of one target.
    const limits: LimitsSection | null = args.only === null ? await physicalLimitsSection(log) : null;
    const report: BenchResults = {
      format: 2,
      generatedAt: new Date().toISOString(),
      quick: QUICK,
      only: args.only,
      durationSec: Math.round((Date.now() - started) / 100) / 10,
      loadAverage: { start: loadStart, end: loadAverage() },
      versions,
      sizes: {
        defaultPairs,
        sides: QUICK
          ? 'quick: warm-up 0.2 s, timed 0.4 s'
          : 'warm-up 1 s unless a side says (`--warmup-seconds` in its args: the Redis unique rows 5 s, the batched sweep 4 s; HTTP sides 5 s); timed 2 s (unique keys) or 1.5 s (storms); HTTP the same',
      },
      targetFiles: loaded.files,
      problems: [...loaded.problems, ...setUp.problems],
      targets: results,
      limits,
      postgresCosts,
    };
    await mkdir(outDir, { recursive: true });
    const jsonPath = resultPath(outDir, report.generatedAt, 'json');
    const summaryPath = resultPath(outDir, report.generatedAt, 'md');
    await writeFile(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(summaryPath, renderSummary(report, { causes: CAUSES, jsonFile: basename(jsonPath) }));
    // The physical limits (pgbench, redis-benchmark, mysqlslap) the targets are measured against, apart.
    if (limits?.markdown) await writeFile(resultPath(outDir, report.generatedAt, 'md', 'limits'), limits.markdown);
    // Biome formats the committed JSON; it ignores out/ and paths outside the repository.
    if (full && process.env.BENCH_OUT === undefined) await formatWithBiome([jsonPath]);
    for (const t of results) {
      const verdict = t.met === null ? 'report' : t.met ? 'met   ' : 'MISSED';
      const ratio = t.ratio
        ? `${t.ratio.median.toFixed(2)}× (${t.ratio.min.toFixed(2)}–${t.ratio.max.toFixed(2)})`
        : 'n/a';
      log(`${verdict} ${t.target.id.padEnd(44)} ${ratio}${t.target.min === null ? '' : ` ≥ ${t.target.min}`}`);
    }
    log(
      `wrote ${summaryPath} and ${basename(jsonPath)} in ${((Date.now() - started) / 1_000).toFixed(0)} s; load average ${loadStart.toFixed(2)} → ${loadAverage().toFixed(2)}`,
    );
  } finally {
    await setUp.finish();
    for (const ns of namespaces.values()) {
      await ns.then((n) => n.drop()).catch((error: unknown) => log(`drop failed: ${String(error)}`));
    }
  }
}

await main();

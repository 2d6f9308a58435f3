/**
 * The OpenTelemetry rows (issue 39): what tracing costs the guard, pair by pair in one run.
 * - `otel-guard-sdk-vs-none-{redis,postgres}`: `guard.run` in a process with an OTel SDK registered (batch span
 *   processor with an exporter that drops the spans, a meter provider, the AsyncLocalStorage context manager;
 *   `subjects/otel-sdk.ts`) ÷ the same row in a process without any SDK. Goal ≥ 0.95.
 *   The calls run outside any trace, where the guard starts no span by default (`requireParentSpan`).
 * - `otel-guard-traced-vs-none-{redis,postgres}`: the same with every call inside a sampled trace (one span
 *   `payonce.guard` recorded per call, plus the context switch an application with tracing makes) ÷ no SDK. No goal:
 *   it shows what one recorded span costs a call (packages/bench/notes/otel.md).
 * - `otel-guard-none-vs-before-{redis,postgres}`: this build without any SDK ÷ the build before OpenTelemetry
 *   (`BENCH_OTEL_BASE`, default `c52fac0`, the last commit before issue 39), "equal to today". `prepare` extracts
 *   that commit's packages/payonce with `git archive` into `out/otel-base/` and builds it with the repository's
 *   TypeScript (as the A/B scripts compare two trees), and hands its `dist/` to the sides through
 *   `BENCH_OTEL_BASE_DIST` (`subjects/payonce-base.ts`). Goal ≥ 0.95.
 * Every side: 8 concurrent unique deliveries, like the `*-guard` and `redis-vs-bare` rows (the Redis sides warm up
 * for 5 s, as there).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type PairTarget, quickRun, type SideSpec } from '../lib/side-protocol.js';
import { OTEL_BASE_DIST_ENV } from '../subjects/payonce-base.js';

const GROUP = 'OpenTelemetry';
/** The last commit before OpenTelemetry came in (issue 39); `BENCH_OTEL_BASE` overrides it. */
const DEFAULT_BASE = 'c52fac0';
/** Goal of every row: tracing (or its absence) costs at most 5 % of the guard's rate. */
const GOAL = 0.95;
const NAMES = { redis: 'Redis', postgres: 'PostgreSQL' } as const;
const WARMUP_SECONDS = { redis: 5, postgres: undefined } as const;

type Backend = keyof typeof NAMES;

function side(backend: Backend, row: string, label: string): SideSpec {
  const warmupSeconds = WARMUP_SECONDS[backend];
  const warmup = warmupSeconds === undefined || quickRun() ? [] : ['--warmup-seconds', String(warmupSeconds)];
  return {
    id: `${backend}/${row}@unique-c8`,
    label: `${label} on ${NAMES[backend]}, unique keys, 8 concurrent`,
    backend,
    script: 'lib/subject-side.ts',
    args: ['--subject', `${backend}/${row}`, '--workload', 'unique', '--concurrency', '8', ...warmup],
  };
}

const BACKENDS: readonly Backend[] = ['redis', 'postgres'];

export const targets: readonly PairTarget[] = [
  ...BACKENDS.map(
    (backend): PairTarget => ({
      id: `otel-guard-sdk-vs-none-${backend}`,
      group: GROUP,
      title: `${NAMES[backend]} guard with an OTel SDK registered, calls outside any trace (metrics recorded, no span by default) ÷ without any SDK, 8 concurrent unique deliveries`,
      a: side(backend, 'payonce-otel', 'payonce guard.run outside any trace, OTel SDK registered'),
      b: side(backend, 'payonce', 'payonce guard.run, no SDK'),
      min: GOAL,
    }),
  ),
  ...BACKENDS.map(
    (backend): PairTarget => ({
      id: `otel-guard-traced-vs-none-${backend}`,
      group: GROUP,
      title: `${NAMES[backend]} guard inside a sampled trace (one guard span recorded a call) ÷ without any SDK, 8 concurrent unique deliveries`,
      a: side(backend, 'payonce-otel-traced', 'payonce guard.run inside a sampled trace, OTel SDK registered'),
      b: side(backend, 'payonce', 'payonce guard.run, no SDK'),
      min: null,
    }),
  ),
  ...BACKENDS.map(
    (backend): PairTarget => ({
      id: `otel-guard-none-vs-before-${backend}`,
      group: GROUP,
      title: `${NAMES[backend]} guard without any SDK ÷ the build before OpenTelemetry, 8 concurrent unique deliveries`,
      a: side(backend, 'payonce', 'payonce guard.run, this build, no SDK'),
      b: side(backend, 'payonce-base', 'payonce guard.run, the build before OpenTelemetry'),
      min: GOAL,
    }),
  ),
];

/** The repository root (this file is packages/bench/targets/otel.ts). */
const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/**
 * Builds the baseline library when a `otel-guard-none-vs-before-*` row is selected: `git archive <base>
 * packages/payonce tsconfig.base.json` into `packages/bench/out/otel-base/`, the repository's node_modules linked
 * beside it, `tsc -p packages/payonce/tsconfig.build.json` there; then sets `BENCH_OTEL_BASE_DIST` for the sides.
 * @throws the git or tsc error (the run reports the target as not run).
 */
export async function prepare(log: (line: string) => void, ids: readonly string[]): Promise<void> {
  if (!ids.some((id) => id.startsWith('otel-guard-none-vs-before-'))) return;
  const base = process.env.BENCH_OTEL_BASE ?? DEFAULT_BASE;
  const out = join(ROOT, 'packages', 'bench', 'out', 'otel-base');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  log(`otel: building the baseline ${base} (packages/payonce) in ${out}`);
  execFileSync(
    'sh',
    ['-c', 'git -C "$1" archive "$2" packages/payonce tsconfig.base.json | tar -x -C "$3"', 'sh', ROOT, base, out],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (!existsSync(join(out, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(out, 'packages', 'payonce', 'tsconfig.build.json'),
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  process.env[OTEL_BASE_DIST_ENV] = join(out, 'packages', 'payonce', 'dist');
}

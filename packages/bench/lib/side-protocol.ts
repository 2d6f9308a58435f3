/**
 * The contract between `npm run bench`'s pair-by-pair harness and a "side": one subject of a
 * ratio, run in a fresh process of its own. The harness runs the two sides of a target pair after pair (A B, B A,
 * A B, …: the side that runs first flips), each side in a fresh process, and reports the median of the per-pair
 * ratios A ÷ B with their min–max.
 *
 * A side is a script run from the bench's folder as `node --expose-gc --import tsx <script> <args…>`:
 * - when its `backend` is set, the harness hands it a freshly reset namespace of that backend as JSON in the
 *   environment variable `BENCH_NS` (a `NamespaceInfo`, `lib/namespaces.ts`); it must write nowhere else, or
 *   remove what it made elsewhere before it exits;
 * - `BENCH_QUICK=1` asks for a smoke run with tiny sizes;
 * - it logs progress to stderr, and prints its `SideResult` as the LAST line of stdout (`emitSideResult`);
 * - it exits 0; a non-zero exit or a missing result line fails that pair (reported, never silently dropped).
 */
import type { BenchBackend, NamespaceInfo } from './namespaces.js';

/** What one run of one side measured. Rates are per second of timed work; latencies are ms per operation. */
export interface SideResult {
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Operations completed in the timed part. */
  readonly operations: number;
  /** Operations that failed (the first message is kept); a side with errors is reported, not trusted. */
  readonly errors: number;
  readonly firstError: string | null;
  /** Storm sides: handler runs, and what is correct (= distinct keys stormed). */
  readonly handlerRuns?: number;
  readonly expectedHandlerRuns?: number;
  /** Peak RSS of the side's process, bytes. */
  readonly peakRssBytes?: number;
  /** Anything else worth printing next to the row (named numbers or short strings). */
  readonly notes?: Readonly<Record<string, number | string>>;
}

/** How to start one side: a script of the bench and its arguments. */
export interface SideSpec {
  /** Stable id, e.g. `postgres/payonce-batched@c64`. */
  readonly id: string;
  /** What the side runs, for the report. */
  readonly label: string;
  /** The backend whose namespace it gets in `BENCH_NS`; `null` when it needs none (or makes its own). */
  readonly backend: BenchBackend | null;
  /** Path of the script from the bench's folder, e.g. `service/intake-side.ts`. */
  readonly script: string;
  readonly args: readonly string[];
}

/** One ratio the bench reports: A ÷ B, pair by pair; `min` is the target (met only when the median clears it). */
export interface PairTarget {
  /** Stable id, what `npm run bench -- --only ID` selects, e.g. `postgres-batched-c64`. */
  readonly id: string;
  /** The group it belongs to, e.g. `Batched claims`. */
  readonly group: string;
  /** What is compared, e.g. `PostgreSQL batched guard ÷ bare minimum, 64 concurrent unique deliveries`. */
  readonly title: string;
  readonly a: SideSpec;
  readonly b: SideSpec;
  /** The target of the median ratio (e.g. 3 for "≥ 3×"); `null` for a ratio reported without a target. */
  readonly min: number | null;
  /** Pairs to run (≥ 5). @default the harness's */
  readonly pairs?: number;
  /** For storm sides: every pair must have handlerRuns === expectedHandlerRuns on side A (and B if given). */
  readonly exactlyOnce?: boolean;
}

/** Prints `result` as the last line of stdout, as the harness reads it. */
export function emitSideResult(result: SideResult): void {
  process.stdout.write(`\n${JSON.stringify(result)}\n`);
}

/**
 * The namespace the harness handed this side (`BENCH_NS`).
 * @throws {Error} when `BENCH_NS` is missing or not the expected backend.
 */
export function sideNamespace(expected?: BenchBackend): NamespaceInfo {
  const raw = process.env.BENCH_NS;
  if (!raw) throw new Error('BENCH_NS is not set: this side runs under the bench harness (lib/side-protocol.ts)');
  const ns = JSON.parse(raw) as NamespaceInfo;
  if (expected && ns.backend !== expected) throw new Error(`BENCH_NS is ${ns.backend}, expected ${expected}`);
  return ns;
}

/** True when the harness asked for a smoke run (`BENCH_QUICK=1`). */
export const quickRun = (): boolean => process.env.BENCH_QUICK === '1';

import { measureStorm, measureUnique, peakRss, type RunSample, type Spread, spread } from './measure.js';
import type { BenchBackend, Namespace } from './namespaces.js';
import type { HandlerCounter, Subject, SubjectKind } from './subject.js';

/** Sizes of the in-process workloads. */
export interface WorkloadSizes {
  /** (a) unique keys per run and concurrent callers. */
  readonly uniqueKeys: number;
  /** (a) a run stops taking new keys after this many ms (keeps `npm run bench` under ten minutes on slow disks). */
  readonly uniqueMaxMs: number;
  readonly concurrency: number;
  /** (b) storm keys, deliveries of each key at once, keys stormed at a time. */
  readonly stormKeys: number;
  readonly stormCopies: number;
  readonly stormConcurrency: number;
  /** (b) no new key is stormed after this many ms. */
  readonly stormMaxMs: number;
  /** Untimed warm-up deliveries on a fresh connection before each run, at most this many and for at most
   * `WARMUP_MAX_MS` (connections, JIT, statement caches). */
  readonly warmup: number;
  /** Timed runs per row; the report gives their median, min and max. */
  readonly reps: number;
}

export type WorkloadName = 'unique' | 'storm' | 'http' | 'http-storm';

/** One row of the report: one implementation, one backend, one workload, `reps` runs. */
export interface RowResult {
  readonly id: string;
  readonly backend: BenchBackend;
  readonly kind: SubjectKind;
  readonly label: string;
  readonly workload: WorkloadName;
  readonly samples: readonly RunSample[];
  readonly opsPerSec: Spread;
  readonly p50Ms: Spread;
  readonly p99Ms: Spread;
  /** Handler runs per run (storm workloads), and what is correct per run (= keys stormed in that run). */
  readonly handlerRuns: readonly number[];
  readonly expectedHandlerRuns: readonly number[];
  /** Peak RSS of the process that ran this row, through warm-up and workload (a) (max over runs), bytes. */
  readonly peakRssBytes: number | null;
  /** RSS right before this row's timed runs (after a forced GC when `--expose-gc`), lowest over runs, bytes. */
  readonly startRssBytes: number | null;
  /** Set when the row could not run (the message of the first failure). */
  readonly error: string | null;
}

/** Builds a row from its samples. */
export function rowOf(
  subject: Pick<Subject, 'id' | 'backend' | 'kind' | 'label'>,
  workload: WorkloadName,
  samples: readonly RunSample[],
  extra: {
    handlerRuns?: number[];
    expected?: number[];
    peakRssBytes?: number | null;
    startRssBytes?: number | null;
    error?: string | null;
  },
): RowResult {
  const firstError = samples.find((s) => s.firstError !== null)?.firstError ?? null;
  return {
    id: subject.id,
    backend: subject.backend,
    kind: subject.kind,
    label: subject.label,
    workload,
    samples,
    opsPerSec: spread(samples.map((s) => s.opsPerSec)),
    p50Ms: spread(samples.map((s) => s.p50Ms)),
    p99Ms: spread(samples.map((s) => s.p99Ms)),
    handlerRuns: extra.handlerRuns ?? [],
    expectedHandlerRuns: extra.expected ?? [],
    peakRssBytes: extra.peakRssBytes ?? null,
    startRssBytes: extra.startRssBytes ?? null,
    error: extra.error ?? (firstError ? `${samples.reduce((n, s) => n + s.errors, 0)} errors; ${firstError}` : null),
  };
}

/** A full garbage collection when the process runs with `--expose-gc` (as every row's process does), else nothing. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** A warm-up stops taking new keys after this long, whatever its size. */
export const WARMUP_MAX_MS = 1_000;

/** Progress output (stderr), so a long run shows where it is. */
export type Log = (line: string) => void;

/** One repetition of one row: its (a) and (b) samples, handler runs under the storm, and memory under (a). */
export interface OneRun {
  readonly unique: RunSample;
  readonly storm: RunSample;
  readonly stormRuns: number;
  /** RSS right before (a), after a forced GC, bytes. */
  readonly startRss: number;
  /** Peak RSS of the process that ran the row, through its warm-up and (a), bytes. */
  readonly peakRss: number;
}

/** Runs one repetition of one row; `reset` empties the row's namespace (untimed). */
export type RowRunner = (subject: Subject, ns: Namespace, sizes: WorkloadSizes, rep: number) => Promise<OneRun>;

/** The steps of one repetition, wherever they run: `reset` empties the namespace between them. */
export async function runSteps(
  deliver: (id: string) => Promise<import('./subject.js').DeliveryResult>,
  counter: HandlerCounter,
  sizes: WorkloadSizes,
  rep: number,
  reset: () => Promise<void>,
): Promise<OneRun> {
  await measureUnique(deliver, sizes.warmup, sizes.concurrency, `w${rep}-`, WARMUP_MAX_MS);
  await reset();
  counter.runs = 0;
  collectGarbage();
  const startRss = process.memoryUsage.rss();
  const { value: unique, peakRssBytes } = await peakRss(() =>
    measureUnique(deliver, sizes.uniqueKeys, sizes.concurrency, `a${rep}-`, sizes.uniqueMaxMs),
  );
  // The kernel's high-water mark of this process (kB) catches a peak between two samples.
  const peak = Math.max(peakRssBytes, process.resourceUsage().maxRSS * 1_024);
  await reset();
  counter.runs = 0;
  const storm = await measureStorm(
    deliver,
    sizes.stormKeys,
    sizes.stormCopies,
    sizes.stormConcurrency,
    `b${rep}-`,
    sizes.stormMaxMs,
  );
  return { unique, storm, stormRuns: counter.runs, startRss, peakRss: peak };
}

/**
 * Runs a row in this process (tests, `bench/profile.ts`): every row shares this process's heap and JIT, so its
 * RSS is not the row's own; `npm run bench` uses `runInChild` instead.
 */
export const runInThisProcess: RowRunner = async (subject, ns, sizes, rep) => {
  const counter: HandlerCounter = { runs: 0 };
  const deliverer = await subject.open(ns.info, counter);
  try {
    return await runSteps(
      (id) => deliverer.deliver(id),
      counter,
      sizes,
      rep,
      () => ns.reset(),
    );
  } finally {
    await deliverer.close();
  }
};

interface Collected {
  unique: RunSample[];
  storm: RunSample[];
  stormRuns: number[];
  peakRss: number;
  startRss: number;
  error: string | null;
}

/**
 * Runs workloads (a) and (b) for every subject, `sizes.reps` times, interleaving rows within each repetition so
 * drift of the machine spreads over all rows. Each run gets a fresh connection (with `runInChild`, a fresh
 * process), an untimed warm-up and an emptied namespace. A row that fails keeps its error and the others go on.
 */
export async function runInProcess(
  subjects: readonly Subject[],
  namespaces: ReadonlyMap<BenchBackend, Namespace>,
  sizes: WorkloadSizes,
  log: Log = () => {},
  runner: RowRunner = runInThisProcess,
): Promise<RowResult[]> {
  const collected = new Map<string, Collected>(
    subjects.map((s) => [
      s.id,
      { unique: [], storm: [], stormRuns: [], peakRss: 0, startRss: Number.POSITIVE_INFINITY, error: null },
    ]),
  );
  for (let rep = 0; rep < sizes.reps; rep++) {
    for (const subject of subjects) {
      const into = collected.get(subject.id)!;
      if (into.error !== null) continue;
      const ns = namespaces.get(subject.backend);
      if (!ns) throw new Error(`no namespace for ${subject.backend}`);
      try {
        const run = await runner(subject, ns, sizes, rep);
        into.unique.push(run.unique);
        into.storm.push(run.storm);
        into.stormRuns.push(run.stormRuns);
        into.startRss = Math.min(into.startRss, run.startRss);
        into.peakRss = Math.max(into.peakRss, run.peakRss);
        log(
          `  rep ${rep + 1}/${sizes.reps} ${subject.id.padEnd(28)} (a) ${run.unique.opsPerSec.toFixed(0).padStart(6)}/s` +
            `  (b) ${run.storm.opsPerSec.toFixed(0).padStart(6)}/s, handler runs ${run.stormRuns}/${run.storm.deliveries / sizes.stormCopies}` +
            `  peak RSS ${(run.peakRss / 2 ** 20).toFixed(0)} MB`,
        );
      } catch (error) {
        into.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        log(`  ${subject.id}: FAILED ${into.error}`);
      }
    }
  }
  return subjects.flatMap((subject) => {
    const c = collected.get(subject.id)!;
    return [
      rowOf(subject, 'unique', c.unique, {
        peakRssBytes: c.peakRss || null,
        startRssBytes: Number.isFinite(c.startRss) ? c.startRss : null,
        error: c.error,
      }),
      rowOf(subject, 'storm', c.storm, {
        handlerRuns: c.stormRuns,
        expected: c.storm.map((sample) => sample.deliveries / sizes.stormCopies),
        error: c.error,
      }),
    ];
  });
}

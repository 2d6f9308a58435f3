import type { DeliveryResult } from './subject.js';

/** One timed run of a workload. Latencies are milliseconds per delivery, as the caller saw them. */
export interface RunSample {
  readonly deliveries: number;
  readonly elapsedMs: number;
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly results: Readonly<Record<DeliveryResult, number>>;
  /** Deliveries that threw something other than "in progress" (the first message is kept). */
  readonly errors: number;
  readonly firstError: string | null;
}

/** A function that delivers event `id` once. */
export type Deliver = (id: string) => Promise<DeliveryResult>;

/** The value at quantile `q` (0–1) of `sorted` (ascending), nearest-rank. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

class Recorder {
  readonly latencies: Float64Array;
  readonly results: Record<DeliveryResult, number> = { ran: 0, replayed: 0, 'in-progress': 0 };
  errors = 0;
  firstError: string | null = null;
  private filled = 0;

  constructor(size: number) {
    this.latencies = new Float64Array(size);
  }

  async time(deliver: Deliver, id: string): Promise<void> {
    const started = performance.now();
    try {
      this.results[await deliver(id)]++;
    } catch (error) {
      this.errors++;
      this.firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    this.latencies[this.filled++] = performance.now() - started;
  }

  sample(elapsedMs: number): RunSample {
    const sorted = this.latencies.slice(0, this.filled).sort();
    return Object.freeze({
      deliveries: this.filled,
      elapsedMs,
      opsPerSec: (this.filled / elapsedMs) * 1_000,
      p50Ms: quantile(sorted, 0.5),
      p99Ms: quantile(sorted, 0.99),
      results: Object.freeze({ ...this.results }),
      errors: this.errors,
      firstError: this.firstError,
    });
  }
}

/**
 * Workload (a): `keys` unique event ids (`${prefix}${i}`), delivered once each by `concurrency` callers that
 * each take the next id as soon as their previous delivery returns. With `durationMs`, callers stop taking new ids
 * once that much time has passed (at most `keys` are delivered).
 */
export async function measureUnique(
  deliver: Deliver,
  keys: number,
  concurrency: number,
  prefix: string,
  durationMs = Number.POSITIVE_INFINITY,
) {
  const recorder = new Recorder(keys);
  let next = 0;
  const started = performance.now();
  const open = () => performance.now() - started < durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < keys && open(); i = next++) await recorder.time(deliver, `${prefix}${i}`);
    }),
  );
  return recorder.sample(performance.now() - started);
}

/**
 * Workload (b), the duplicate storm: `keys` event ids, each delivered `copies` times at once (all copies in flight
 * together, racing on the claim); `concurrency` keys are stormed at a time. With `durationMs`, no new key is started
 * once that much time has passed. Correct = the handler ran once per key stormed (`deliveries / copies`).
 */
export async function measureStorm(
  deliver: Deliver,
  keys: number,
  copies: number,
  concurrency: number,
  prefix: string,
  durationMs = Number.POSITIVE_INFINITY,
) {
  const recorder = new Recorder(keys * copies);
  let next = 0;
  const started = performance.now();
  const open = () => performance.now() - started < durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < keys && open(); i = next++) {
        const id = `${prefix}${i}`;
        await Promise.all(Array.from({ length: copies }, () => recorder.time(deliver, id)));
      }
    }),
  );
  return recorder.sample(performance.now() - started);
}

/** Samples this process's resident set size while running `fn`; returns the peak in bytes. */
export async function peakRss<T>(fn: () => Promise<T>, everyMs = 20): Promise<{ value: T; peakRssBytes: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, everyMs);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, peakRssBytes: peak };
  } finally {
    clearInterval(timer);
  }
}

/** Median, min and max of a list of numbers (median of an even count = mean of the middle two). */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

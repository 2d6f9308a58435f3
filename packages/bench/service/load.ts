/**
 * The load client of the service benches: `connections` keep-alive connections of one undici `Pool`, each caller
 * sending its next request as soon as its previous one is answered (closed loop), with a warm-up that is drained
 * before the timed part starts.
 */
import { performance } from 'node:perf_hooks';
import { quantile } from '../lib/measure.js';
import type { NamespaceInfo } from '../lib/namespaces.js';

/** What one timed phase measured. */
export interface LoadSample {
  readonly operations: number;
  readonly elapsedMs: number;
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly firstError: string | null;
}

/** One request: resolves when answered as expected, throws otherwise. */
export type Operation = () => Promise<void>;

/**
 * Runs `next()` operations on `concurrency` closed-loop callers for `durationMs` (or until `next` returns `null`),
 * timing each one (failed ones too).
 */
export async function timedLoad(
  next: () => Operation | null,
  concurrency: number,
  durationMs: number,
): Promise<LoadSample> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - started < durationMs) {
        const operation = next();
        if (operation === null) return;
        const t0 = performance.now();
        try {
          await operation();
        } catch (error) {
          errors += 1;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const sorted = Float64Array.from(latencies).sort();
  return {
    operations: latencies.length,
    elapsedMs,
    opsPerSec: (latencies.length / elapsedMs) * 1_000,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    errors,
    firstError,
  };
}

/** The `postgres://` URL of a bench namespace, its schema in the `options` parameter (as `--database-url` takes it). */
export function namespaceDatabaseUrl(ns: NamespaceInfo): string {
  if (!ns.postgres) throw new Error(`namespace ${ns.backend} is not PostgreSQL`);
  const url = new URL(ns.postgres.connectionString);
  url.searchParams.set('options', ns.postgres.options);
  return url.toString();
}

/**
 * One side of a batched-claims ratio (bench/lib/side-protocol.ts): `node --import tsx bench/batched/side.ts
 * <subject> <concurrency> [storm]` where subject is `<backend>/bare`, `<backend>/payonce` or `<backend>/payonce-batched`.
 * Workload (a): unique event ids delivered by `concurrency` callers for a fixed time after a warm-up; with `storm`,
 * workload (b): `concurrency` keys at a time, each delivered 8 times at once (handler runs must equal keys). Prints the
 * `SideResult` as the last stdout line. Uses the namespace in `BENCH_NS` (the table is reset by the runner).
 */
import { measureStorm, measureUnique } from '../lib/measure.js';
import type { BenchBackend } from '../lib/namespaces.js';
import { emitSideResult, quickRun, sideNamespace } from '../lib/side-protocol.js';
import type { Subject } from '../lib/subject.js';
import { bareSubject } from '../subjects/bare.js';
import { payonceSubject } from '../subjects/payonce.js';

function subjectOf(id: string): Subject {
  const [backend, row] = id.split('/') as [BenchBackend, string];
  if (row === 'bare') return bareSubject(backend);
  if (row === 'payonce') return payonceSubject(backend);
  if (row === 'payonce-batched') return payonceSubject(backend, { batched: true });
  throw new Error(`unknown subject ${id}`);
}

const [id = '', concurrencyArg = '8', workload = 'unique'] = process.argv.slice(2);
const COPIES = 8;
const concurrency = Number(concurrencyArg);
const subject = subjectOf(id);
const ns = sideNamespace(subject.backend);
const counter = { runs: 0 };
const deliverer = await subject.open(ns, counter);
const quick = quickRun();
const durationMs = quick ? 300 : Number(process.env.BENCH_SIDE_MS ?? 4_000);
try {
  await measureUnique(deliverer.deliver, quick ? 50 : Math.max(300, concurrency * 4), concurrency, 'w-', 2_000);
  const storm = workload === 'storm';
  const runsBefore = counter.runs;
  const sample = storm
    ? await measureStorm(deliverer.deliver, 200_000, COPIES, concurrency, 'b-', durationMs)
    : await measureUnique(deliverer.deliver, 2_000_000, concurrency, 'a-', durationMs);
  emitSideResult({
    opsPerSec: sample.opsPerSec,
    p50Ms: sample.p50Ms,
    p99Ms: sample.p99Ms,
    operations: sample.deliveries,
    errors: sample.errors,
    firstError: sample.firstError,
    handlerRuns: counter.runs - runsBefore,
    ...(storm ? { expectedHandlerRuns: sample.deliveries / COPIES } : {}),
  });
} finally {
  await deliverer.close();
}

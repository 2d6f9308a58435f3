/**
 * A side (`side-protocol.ts`) for the in-process subjects of `subjects/` — bare minimum, payonce, peers:
 *
 *   node --expose-gc --import tsx lib/subject-side.ts --subject postgres/payonce-batched \
 *     --workload unique|storm --concurrency 64 [--keys N] [--seconds S] [--warmup-seconds S] [--copies N]
 *
 * It opens the subject on the namespace in `BENCH_NS` (only that subject's driver is imported), warms up with
 * unique keys for `--warmup-seconds` (default 1 s, 0.2 s under BENCH_QUICK=1), then times one workload:
 * - `unique`: `--keys` unique event ids delivered once each by `--concurrency` callers, for at most `--seconds`
 *   (default 2 s; 0.4 s quick); handler runs must equal deliveries;
 * - `storm`: every key delivered `--copies` (10) times at once, `--concurrency` keys at a time, no new key after
 *   `--seconds` (default 1.5 s; 0.4 s quick); handler runs must equal the keys stormed.
 * It prints a `SideResult` (rate, p50/p99 per delivery, errors, handler runs, peak RSS of this process).
 */
import { loadSubject } from '../subjects/load-subject.js';
import { measureStorm, measureUnique, peakRss, type RunSample } from './measure.js';
import { collectGarbage } from './run-rows.js';
import { parseSubjectSideArgs } from './side-args.js';
import { emitSideResult, quickRun, sideNamespace } from './side-protocol.js';
import type { HandlerCounter } from './subject.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const args = parseSubjectSideArgs(process.argv.slice(2), quickRun());
  const subject = await loadSubject(args.subject);
  const counter: HandlerCounter = { runs: 0 };
  const deliverer = await subject.open(sideNamespace(subject.backend), counter);
  try {
    const deliver = (id: string) => deliverer.deliver(id);
    await measureUnique(deliver, 200_000, args.concurrency, 'w-', args.warmupSeconds * 1_000);
    counter.runs = 0;
    collectGarbage();
    const startRss = process.memoryUsage.rss();
    const { value: sample, peakRssBytes } = await peakRss<RunSample>(() =>
      args.workload === 'unique'
        ? measureUnique(deliver, args.keys, args.concurrency, 'a-', args.seconds * 1_000)
        : measureStorm(deliver, args.keys, args.copies, args.concurrency, 's-', args.seconds * 1_000),
    );
    const expected = args.workload === 'unique' ? sample.deliveries : sample.deliveries / args.copies;
    log(
      `${args.subject} ${args.workload} c${args.concurrency}: ${sample.opsPerSec.toFixed(0)}/s, runs ${counter.runs}/${expected}`,
    );
    emitSideResult({
      opsPerSec: sample.opsPerSec,
      p50Ms: sample.p50Ms,
      p99Ms: sample.p99Ms,
      operations: sample.deliveries,
      errors: sample.errors,
      firstError: sample.firstError,
      handlerRuns: counter.runs,
      expectedHandlerRuns: expected,
      // The kernel's high-water mark (kB) catches a peak between two samples; it includes the warm-up.
      peakRssBytes: Math.max(peakRssBytes, process.resourceUsage().maxRSS * 1_024),
      notes: {
        startRssMB: Math.round(startRss / 2 ** 20),
        ran: sample.results.ran,
        replayed: sample.results.replayed,
        inProgress: sample.results['in-progress'],
        elapsedMs: Math.round(sample.elapsedMs),
        ...deliverer.notes?.(),
      },
    });
  } finally {
    await deliverer.close();
  }
}

await main();

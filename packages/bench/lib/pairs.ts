/**
 * The pair-by-pair harness: for one `PairTarget` it runs sides A and B, each in a fresh process,
 * `pairs` times, emptying a side's namespace right before every run of that side. The side that runs first flips
 * from pair to pair (A B, B A, A B, …: `firstOf`), so neither side is always the one measured earlier while the
 * machine drifts. With A always first, the A/A row (`http-noise-floor-memory`, the same side twice) read 0.90×,
 * all 7 pairs below 1, in one full run and 1.08× in another (notes/host.md). There is no
 * separate warm-up pair: every side warms up inside its own process before its timed part (a fresh process has a
 * cold JIT, so a warm-up pair would not warm the next one). After two failed pairs in a row the target stops, so a
 * broken side cannot hold the run for long; every failure is kept in the result.
 */
import type { BenchBackend, Namespace, NamespaceInfo } from './namespaces.js';
import { judgeTarget, type PairRun, type SideRun, sideProblem, type TargetVerdict } from './pair-verdict.js';
import type { PairTarget, SideSpec } from './side-protocol.js';

/** What the harness needs around a target: namespaces, a side runner, progress output. */
export interface PairHarness {
  /** The bench's namespace of `backend` (created on first use, dropped by the caller at the end). */
  namespace(backend: BenchBackend): Promise<Namespace>;
  /** Runs one side in a fresh process on `ns` (see `run-side.ts`). */
  runSide(side: SideSpec, ns: NamespaceInfo | null): Promise<SideRun>;
  readonly log: (line: string) => void;
  /** Pairs per target when the target does not say. */
  readonly defaultPairs: number;
}

/** A target as it ran: the target, its pairs and the verdict. */
export interface TargetRun {
  readonly target: PairTarget;
  readonly pairs: readonly PairRun[];
  readonly verdict: TargetVerdict;
  /** Set when the target stopped before its last pair. */
  readonly stoppedEarly: string | null;
  readonly wallMs: number;
}

const rate = (run: SideRun): string =>
  sideProblem(run) === null ? `${run.result!.opsPerSec.toFixed(0)}/s` : `FAILED (${sideProblem(run)!.slice(0, 160)})`;

/** `  A corked` when side `name` reported the pipelining its store chose (Redis, `pipelining: 'auto'`), else ''. */
const pipeliningOf = (name: string, run: SideRun): string => {
  const chosen = run.result?.notes?.pipelining;
  return chosen === undefined ? '' : `  ${name} ${chosen}`;
};

/**
 * The side that runs first in pair `index` (0-based): A in even pairs, B in odd ones. With an even number of pairs
 * each order runs equally often, so a drift of the machine during a target (or a cost of running first) moves half
 * the pair ratios down and half up by the same factor, and the median (the mean of the two middle ratios) keeps
 * the ratio of the sides.
 */
export function firstOf(index: number): 'a' | 'b' {
  return index % 2 === 0 ? 'a' : 'b';
}

/** Runs both sides of one pair in the order `first`. */
async function runPair(target: PairTarget, first: 'a' | 'b', harness: PairHarness): Promise<PairRun> {
  if (first === 'a') {
    const a = await runOneSide(target.a, harness);
    return { a, b: await runOneSide(target.b, harness), first };
  }
  const b = await runOneSide(target.b, harness);
  return { a: await runOneSide(target.a, harness), b, first };
}

/** Empties the side's namespace, then runs it; a failed reset fails the side. */
async function runOneSide(side: SideSpec, harness: PairHarness): Promise<SideRun> {
  let ns: Namespace | null = null;
  try {
    if (side.backend !== null) {
      ns = await harness.namespace(side.backend);
      await ns.reset();
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { sideId: side.id, result: null, failure: `namespace ${side.backend}: ${message}`, wallMs: 0 };
  }
  return harness.runSide(side, ns?.info ?? null);
}

/** Runs `target`'s pairs and judges them. */
export async function runTarget(target: PairTarget, harness: PairHarness): Promise<TargetRun> {
  const started = performance.now();
  const count = target.pairs ?? harness.defaultPairs;
  const pairs: PairRun[] = [];
  let stoppedEarly: string | null = null;
  harness.log(`${target.id}: ${target.title} (${count} pairs)`);
  for (let i = 0; i < count; i++) {
    const pair = await runPair(target, firstOf(i), harness);
    const { a, b } = pair;
    pairs.push(pair);
    const ratio = judgeTarget(target, [pair]).pairRatios[0];
    const runs =
      a.result?.expectedHandlerRuns === undefined
        ? ''
        : `  handler runs ${a.result.handlerRuns}/${a.result.expectedHandlerRuns}`;
    harness.log(
      `  pair ${i + 1}/${count} ${pair.first === 'a' ? 'A,B' : 'B,A'}  A ${rate(a)}  B ${rate(b)}  A÷B ${ratio == null ? 'n/a' : ratio.toFixed(3)}${runs}` +
        `${pipeliningOf('A', a)}${pipeliningOf('B', b)}`,
    );
    const failed = (p: PairRun) => sideProblem(p.a) !== null || sideProblem(p.b) !== null;
    if (i >= 1 && i < count - 1 && failed(pairs[i]!) && failed(pairs[i - 1]!)) {
      stoppedEarly = `stopped after ${i + 1} of ${count} pairs: two failed pairs in a row`;
      harness.log(`  ${stoppedEarly}`);
      break;
    }
  }
  const verdict = judgeTarget(target, pairs);
  const r = verdict.ratio;
  harness.log(
    `  => ${r ? `${r.median.toFixed(2)}× (${r.min.toFixed(2)}–${r.max.toFixed(2)})` : 'no clean pair'}` +
      `${target.min === null ? '' : ` target ≥ ${target.min}×`}  ${verdict.met === null ? '' : verdict.met ? 'met' : 'MISSED'}`,
  );
  return { target, pairs, verdict, stoppedEarly, wallMs: performance.now() - started };
}

import { describe, expect, it } from 'vitest';
import type { BenchResults } from '../lib/bench-results.js';
import type { SideRun } from '../lib/pair-verdict.js';
import { firstOf, type PairHarness, runTarget } from '../lib/pairs.js';
import { pairOrderText } from '../lib/results-markdown.js';
import type { PairTarget, SideSpec } from '../lib/side-protocol.js';

/**
 * The order of the two sides inside each pair flips from pair to pair, so a machine that drifts during a target
 * (or a cost of running first) does not land on one side only. Sides here are fakes with no process: the rate
 * a side reports depends only on when it runs, as on a machine that speeds up during a row.
 */
const side = (id: string): SideSpec => ({ id, label: id, backend: null, script: 'none', args: [] });
const target: PairTarget = {
  id: 'a-a',
  group: 'test',
  title: 'the same side twice',
  a: side('A'),
  b: side('B'),
  min: 1,
};

/** A harness whose n-th side run (0-based) reports `rateAt(n)` deliveries/s, recording which side ran. */
function driftingHarness(rateAt: (n: number) => number, pairs: number) {
  const ran: string[] = [];
  const harness: PairHarness = {
    namespace: () => Promise.reject(new Error('no namespace in this test')),
    async runSide(spec): Promise<SideRun> {
      const opsPerSec = rateAt(ran.length);
      ran.push(spec.id);
      const result = { opsPerSec, p50Ms: 1, p99Ms: 1, operations: 1000, errors: 0, firstError: null };
      return { sideId: spec.id, result, failure: null, wallMs: 1 };
    },
    log: () => {},
    defaultPairs: pairs,
  };
  return { harness, ran };
}

describe('pair order (lib/pairs.ts)', () => {
  it('runs A first in even pairs and B first in odd ones, and records it in every pair', async () => {
    const { harness, ran } = driftingHarness(() => 1000, 6);
    const run = await runTarget(target, harness);
    expect(ran).toEqual(['A', 'B', 'B', 'A', 'A', 'B', 'B', 'A', 'A', 'B', 'B', 'A']);
    expect(run.pairs.map((pair) => pair.first)).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
    expect([0, 1, 2, 3].map(firstOf)).toEqual(['a', 'b', 'a', 'b']);
    // Whatever ran first, each pair's A and B are the runs of sides A and B.
    for (const pair of run.pairs) expect([pair.a.sideId, pair.b.sideId]).toEqual(['A', 'B']);
  });

  it('keeps the ratio of two equal sides at 1 on a machine that speeds up during the target', async () => {
    // 3 % faster with every side run: with A always first, every pair would read 1 / 1.03 ≈ 0.971.
    const { harness } = driftingHarness((n) => 1000 * 1.03 ** n, 6);
    const run = await runTarget(target, harness);
    const ratios = run.verdict.pairRatios as number[];
    expect(ratios.filter((r) => r < 1)).toHaveLength(3);
    expect(ratios.filter((r) => r > 1)).toHaveLength(3);
    expect(run.verdict.ratio!.median).toBeCloseTo(1, 2);
  });

  it('says in the summary which order the pairs ran in (older result files: A then B)', () => {
    const withPairs = (pairs: readonly { first?: 'a' | 'b' }[]) =>
      ({ targets: [{ pairs }] }) as unknown as BenchResults;
    expect(pairOrderText(withPairs([{ first: 'a' }, { first: 'b' }]))).toMatch(/flipping from pair to pair/);
    expect(pairOrderText(withPairs([{}, {}]))).toBe('A then B');
  });
});

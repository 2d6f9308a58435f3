import { afterAll, describe, expect, it } from 'vitest';
import { type BenchResults, type TargetResult, targetResult } from '../lib/bench-results.js';
import { type BenchBackend, createNamespace, type Namespace } from '../lib/namespaces.js';
import { type PairHarness, runTarget } from '../lib/pairs.js';
import { renderSummary } from '../lib/results-markdown.js';
import { runSide } from '../lib/run-side.js';
import type { PairTarget, SideSpec } from '../lib/side-protocol.js';

/**
 * The pair-by-pair harness on real side processes with tiny sizes (no timing assertions): every side runs in a
 * fresh process on a namespace the harness empties first, storms are checked for exactly-once, and a side that
 * fails is reported in its pair instead of being dropped or hanging the run.
 */
const namespaces = new Map<BenchBackend, Promise<Namespace>>();
const lines: string[] = [];
const harness: PairHarness = {
  namespace(backend) {
    let ns = namespaces.get(backend);
    if (!ns) {
      ns = createNamespace(backend);
      namespaces.set(backend, ns);
    }
    return ns;
  },
  runSide: (side, ns) => runSide(side, { ns, timeoutMs: 60_000 }),
  log: (line) => lines.push(line),
  defaultPairs: 2,
};

afterAll(async () => {
  for (const ns of namespaces.values()) await (await ns).drop();
});

const tiny = ['--seconds', '0.2', '--warmup-seconds', '0.1', '--keys', '300'];
const subjectSide = (subject: string, backend: BenchBackend, ...args: string[]): SideSpec => ({
  id: subject,
  label: subject,
  backend,
  script: 'lib/subject-side.ts',
  args: ['--subject', subject, ...tiny, ...args],
});

describe('pair-by-pair harness (memory + sqlite, tiny sides)', () => {
  const results: TargetResult[] = [];

  it('runs A then B in fresh processes, pair after pair, and takes the median of the pair ratios', async () => {
    const target: PairTarget = {
      id: 'memory-guard',
      group: 'test',
      title: 'memory guard ÷ bare',
      a: subjectSide('memory/payonce', 'memory'),
      b: subjectSide('memory/bare', 'memory'),
      min: 0.000_001,
    };
    const run = await runTarget(target, harness);
    results.push(targetResult(run));
    expect(run.pairs).toHaveLength(2);
    for (const pair of run.pairs) {
      for (const sideRun of [pair.a, pair.b]) {
        expect(sideRun.failure).toBeNull();
        expect(sideRun.result?.errors).toBe(0);
        expect(sideRun.result?.operations).toBeGreaterThan(0);
        expect(sideRun.result?.handlerRuns).toBe(sideRun.result?.operations);
        expect(sideRun.result?.peakRssBytes).toBeGreaterThan(0);
      }
    }
    const ratios = run.pairs.map((p) => p.a.result!.opsPerSec / p.b.result!.opsPerSec);
    expect(run.verdict.pairRatios).toEqual(ratios);
    expect(run.verdict.ratio?.median).toBeCloseTo((ratios[0]! + ratios[1]!) / 2, 12);
    expect(run.verdict.met).toBe(true);
  }, 120_000);

  it("prints the pipelining a Redis side's store chose next to its pair (and keeps it in the side's notes)", async () => {
    const target: PairTarget = {
      id: 'redis-guard',
      group: 'test',
      title: 'redis guard ÷ bare',
      a: subjectSide('redis/payonce', 'redis'),
      b: subjectSide('redis/bare', 'redis'),
      min: null,
    };
    const from = lines.length;
    const run = await runTarget(target, harness);
    for (const pair of run.pairs) {
      expect(pair.a.result?.notes?.pipelining).toMatch(/^(corked|uncorked)( \(disputed\))?$|^not probed yet$/);
      expect(pair.b.result?.notes?.pipelining).toBeUndefined();
    }
    const pairLines = lines.slice(from).filter((line) => line.startsWith('  pair '));
    expect(pairLines).toHaveLength(2);
    for (const [i, line] of pairLines.entries()) {
      expect(line.endsWith(`  A ${run.pairs[i]?.a.result?.notes?.pipelining}`)).toBe(true);
    }
  }, 120_000);

  it('checks handler runs == keys in every storm pair, on a namespace emptied before each side', async () => {
    const target: PairTarget = {
      id: 'sqlite-storm',
      group: 'test',
      title: 'sqlite storm',
      // Both sides storm the same key ids: without the reset before each side, B would only replay A's rows.
      a: subjectSide('sqlite/payonce', 'sqlite', '--workload', 'storm', '--keys', '20'),
      b: subjectSide('sqlite/bare', 'sqlite', '--workload', 'storm', '--keys', '20'),
      min: null,
      exactlyOnce: true,
    };
    const run = await runTarget(target, harness);
    results.push(targetResult(run));
    for (const pair of run.pairs) {
      expect(pair.a.result?.handlerRuns).toBe(pair.a.result?.expectedHandlerRuns);
      expect(pair.b.result?.handlerRuns).toBe(pair.b.result?.expectedHandlerRuns);
      expect(pair.b.result?.expectedHandlerRuns).toBeGreaterThan(0);
    }
    expect(run.verdict).toMatchObject({ exactlyOnce: true, met: true });
  }, 120_000);

  it('reports a side that fails in its pair, and stops a target after two failed pairs in a row', async () => {
    const target: PairTarget = {
      id: 'broken',
      group: 'test',
      title: 'a side that cannot open',
      a: subjectSide('memory/no-such-row', 'memory'),
      b: subjectSide('memory/bare', 'memory'),
      min: 1,
      pairs: 5,
    };
    const run = await runTarget(target, harness);
    results.push(targetResult(run));
    expect(run.pairs).toHaveLength(2);
    expect(run.stoppedEarly).toContain('two failed pairs in a row');
    expect(run.verdict.met).toBe(false);
    expect(run.verdict.problems[0]).toMatch(/^pair 1 A: exit 1: .*unknown bench row memory\/no-such-row/);
  }, 120_000);

  it('renders a short summary: the target table, why each miss is missed, what the run lacked', () => {
    const report: BenchResults = {
      format: 2,
      generatedAt: '2026-12-01T00:00:00.000Z',
      quick: true,
      only: null,
      durationSec: 1,
      loadAverage: { start: 0.5, end: 0.7 },
      versions: null,
      sizes: { defaultPairs: 2 },
      targetFiles: [{ file: 'targets/core.ts', count: 3 }],
      problems: ['targets/scale.ts is missing: its targets are not in this run'],
      targets: results,
      limits: { markdown: '### Physical limits\n\npgbench: 1 tps', problem: null },
      postgresCosts: null,
    };
    const markdown = renderSummary(report, { causes: { broken: 'why' }, jsonFile: '2026-12-01.json' });
    const memory = results[0]!;
    expect(markdown.startsWith('# payonce bench, 2026-12-01\n')).toBe(true);
    expect(markdown).toContain(
      `| memory guard ÷ bare | \`memory-guard\` | ${memory.ratio!.median.toFixed(2)}× (${memory.ratio!.min.toFixed(2)}–${memory.ratio!.max.toFixed(2)}×) | 2/2 |`,
    );
    expect(markdown).toContain('| a side that cannot open | `broken` | n/a | 0/2 (2 failed) | ≥ 1.00× | **no** |');
    expect(markdown).toContain('- `broken` missed: why');
    expect(markdown).toContain('targets/scale.ts is missing');
    expect(markdown).toContain('[2026-12-01.json](2026-12-01.json)');
    // Tens of lines, not thousands: every pair and side stays in the JSON.
    expect(markdown.split('\n').length).toBeLessThanOrEqual(25 + 2 * results.length);
  });
});

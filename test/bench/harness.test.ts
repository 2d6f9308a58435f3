import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BenchResults, type TargetResult, targetResult } from '../../bench/lib/bench-results.js';
import { type BenchBackend, createNamespace, type Namespace } from '../../bench/lib/namespaces.js';
import { readNotes } from '../../bench/lib/notes-dir.js';
import { type PairHarness, runTarget } from '../../bench/lib/pairs.js';
import { README_END, README_START, renderReadmeSection, updateReadme } from '../../bench/lib/readme-section.js';
import { ratioText, renderResults } from '../../bench/lib/results-markdown.js';
import { runSide } from '../../bench/lib/run-side.js';
import type { PairTarget, SideSpec } from '../../bench/lib/side-protocol.js';

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
  script: 'bench/lib/subject-side.ts',
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

  it('renders RESULTS.md with the target table on top and every note verbatim, and the README section', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payonce-bench-'));
    try {
      await writeFile(join(dir, 'b.md'), '## Second note\n\nwritten by b\n');
      await writeFile(join(dir, 'a.md'), '## First note\n\n| x | 1 |\n');
      const report: BenchResults = {
        format: 2,
        generatedAt: '2026-12-01T00:00:00.000Z',
        quick: true,
        only: null,
        durationSec: 1,
        loadAverage: { start: 0.5, end: 0.7 },
        versions: null,
        sizes: { defaultPairs: 2 },
        targetFiles: [{ file: 'bench/targets/core.ts', count: 3 }],
        problems: ['bench/targets/scale.ts is missing: its targets are not in this run'],
        targets: results,
        limits: { markdown: '### Physical limits\n\npgbench: 1 tps', problem: null },
        postgresCosts: null,
      };
      const markdown = renderResults(report, { notes: await readNotes(dir), method: ['m'], causes: { broken: 'why' } });
      const table = markdown.slice(markdown.indexOf('## Targets'), markdown.indexOf('## Checks across targets'));
      const memory = results[0]!;
      expect(table).toContain(
        `| memory guard ÷ bare | \`memory-guard\` | ${memory.ratio!.median.toFixed(2)}× (${memory.ratio!.min.toFixed(2)}–${memory.ratio!.max.toFixed(2)}×) | 2/2 |`,
      );
      expect(table).toContain('| a side that cannot open | `broken` | n/a | 0/2 (2 failed) | ≥ 1.00× | **no** |');
      expect(table).toContain('bench/targets/scale.ts is missing');
      expect(markdown).toContain('Why it is missed: why');
      const profiles = markdown.slice(markdown.indexOf('## Profiles, limits and explanations'));
      expect(profiles.indexOf('pgbench: 1 tps')).toBeGreaterThan(0);
      expect(profiles.indexOf('## First note\n\n| x | 1 |')).toBeGreaterThan(profiles.indexOf('pgbench'));
      expect(profiles.indexOf('## Second note\n\nwritten by b')).toBeGreaterThan(profiles.indexOf('## First note'));

      const section = renderReadmeSection(report);
      expect(section.startsWith(README_START) && section.endsWith(README_END)).toBe(true);
      expect(section).toContain(`| sqlite storm | ${ratioText(results[1]!)} | yes |`);
      expect(section).toContain(`| memory guard ÷ bare | ${ratioText(results[0]!)} | yes (≥ 0.000001×) |`);
      const readme = join(dir, 'README.md');
      await writeFile(readme, `# x\n\n${README_START}\nold numbers\n${README_END}\n\n## Next\n`);
      expect(await updateReadme(readme, report)).toBe(true);
      expect(await readFile(readme, 'utf8')).toBe(`# x\n\n${section}\n\n## Next\n`);
      await writeFile(readme, '# no markers\n');
      expect(await updateReadme(readme, report)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

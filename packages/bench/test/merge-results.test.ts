import { describe, expect, it } from 'vitest';
import type { BenchResults, TargetResult } from '../lib/bench-results.js';
import { mergeRun } from '../lib/merge-results.js';
import { renderSummary } from '../lib/results-markdown.js';

/** A target result with one clean pair of ratio `ratio` (no side details: the merge and the table read none). */
const row = (id: string, ratio: number): TargetResult => ({
  target: {
    id,
    group: 'test',
    title: `title of ${id}`,
    a: { id: 'a', label: 'a', backend: null, script: 'a.ts', args: [] },
    b: { id: 'b', label: 'b', backend: null, script: 'b.ts', args: [] },
    min: 0.9,
  },
  pairs: [],
  ratio: { median: ratio, min: ratio, max: ratio },
  pairRatios: [ratio],
  cleanPairs: 0,
  problems: [],
  exactlyOnce: null,
  met: ratio >= 0.9,
  stoppedEarly: null,
  wallSec: 1,
});

const run = (overrides: Partial<BenchResults>): BenchResults => ({
  format: 2,
  generatedAt: '2026-12-06T04:14:21.074Z',
  quick: false,
  only: null,
  durationSec: 2_000,
  loadAverage: { start: 1, end: 2 },
  versions: null,
  sizes: {},
  targetFiles: [],
  problems: [],
  targets: [],
  limits: null,
  postgresCosts: null,
  ...overrides,
});

const full = run({ targets: [row('postgres-guard', 1.01), row('stack-pg-vs-own', 0.5)] });
const partial = run({
  generatedAt: '2026-12-06T13:20:05.000Z',
  only: ['stack-*'],
  durationSec: 300,
  loadAverage: { start: 3.5, end: 4.25 },
  targets: [row('stack-pg-vs-own', 0.97), row('stack-drizzle-vs-own', 0.92)],
});

describe("mergeRun: a partial run's rows into the latest full run", () => {
  it('replaces a target in place, appends a new one, and records the run that measured them', () => {
    const merged = mergeRun(full, partial);
    expect(merged.targets.map((t) => [t.target.id, t.ratio?.median])).toEqual([
      ['postgres-guard', 1.01],
      ['stack-pg-vs-own', 0.97],
      ['stack-drizzle-vs-own', 0.92],
    ]);
    expect(merged.generatedAt).toBe(full.generatedAt);
    expect(merged.added).toEqual([
      {
        generatedAt: '2026-12-06T13:20:05.000Z',
        only: ['stack-*'],
        durationSec: 300,
        loadAverage: { start: 3.5, end: 4.25 },
        targetIds: ['stack-pg-vs-own', 'stack-drizzle-vs-own'],
      },
    ]);
  });

  it('keeps of an earlier added run only the targets the new run did not measure again', () => {
    const again = run({ ...partial, generatedAt: '2026-12-07T09:00:00.000Z', targets: [row('stack-pg-vs-own', 1.02)] });
    const merged = mergeRun(mergeRun(full, partial), again);
    expect(merged.added?.map((a) => [a.generatedAt, a.targetIds])).toEqual([
      ['2026-12-06T13:20:05.000Z', ['stack-drizzle-vs-own']],
      ['2026-12-07T09:00:00.000Z', ['stack-pg-vs-own']],
    ]);
    expect(merged.targets.find((t) => t.target.id === 'stack-pg-vs-own')?.ratio?.median).toBe(1.02);
  });

  it('refuses a smoke run, a full run as the rows, a partial run as the target file, and an empty run', () => {
    expect(() => mergeRun(full, { ...partial, quick: true })).toThrow(/smoke run/);
    expect(() => mergeRun(full, full)).toThrow(/full run is a results file of its own/);
    expect(() => mergeRun(partial, partial)).toThrow(/merged into a full run only/);
    expect(() => mergeRun(full, { ...partial, targets: [] })).toThrow(/no targets/);
  });

  it('renders the added rows with the time they were measured, and the run that measured them', () => {
    const markdown = renderSummary(mergeRun(full, partial), { causes: {}, jsonFile: '2026-12-06.json' });
    expect(markdown).toContain(
      '| title of stack-drizzle-vs-own (measured 2026-12-06 13:20 UTC, below) | `stack-drizzle-vs-own` | 0.92× (0.92–0.92×) |',
    );
    expect(markdown).toContain('| title of postgres-guard | `postgres-guard` | 1.01× (1.01–1.01×) |');
    expect(markdown).toContain(
      '- `stack-pg-vs-own`, `stack-drizzle-vs-own`: `npm run bench -- --only stack-*` at 2026-12-06T13:20:05.000Z, 300 s, load average 3.50 at start and 4.25 at end.',
    );
  });
});

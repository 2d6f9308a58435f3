import { describe, expect, it } from 'vitest';
import { parseBenchArgs, selectTargets } from '../lib/bench-args.js';
import { judgeTarget, type PairRun, type SideRun } from '../lib/pair-verdict.js';
import { parseSideOutput } from '../lib/run-side.js';
import { parseHttpSideArgs, parseSubjectSideArgs } from '../lib/side-args.js';
import type { SideResult } from '../lib/side-protocol.js';
import { targetProblems } from '../lib/target-files.js';
import { loadSubject } from '../subjects/load-subject.js';
import { targets as coreTargets } from '../targets/core.js';

/** The pure parts of the pair-by-pair harness: no process is started and nothing is timed. */
const result = (opsPerSec: number, extra: Partial<SideResult> = {}): SideResult => ({
  opsPerSec,
  p50Ms: 1,
  p99Ms: 2,
  operations: 100,
  errors: 0,
  firstError: null,
  ...extra,
});
const side = (r: SideResult | null, failure: string | null = null): SideRun => ({
  sideId: 'x',
  result: r,
  failure,
  wallMs: 1,
});
const pair = (a: number, b: number): PairRun => ({ a: side(result(a)), b: side(result(b)) });

describe('judging a target from its pairs', () => {
  it('takes the median of the per-pair ratios A ÷ B, with their min and max', () => {
    const pairs = [pair(300, 100), pair(100, 100), pair(250, 100), pair(400, 100), pair(200, 100)];
    const verdict = judgeTarget({ min: 2 }, pairs);
    expect(verdict.pairRatios).toEqual([3, 1, 2.5, 4, 2]);
    expect(verdict.ratio).toEqual({ median: 2.5, min: 1, max: 4 });
    expect(verdict.met).toBe(true);
  });

  it('is not the ratio of the medians: a pair is compared only with its own partner', () => {
    // Median of A = 100, median of B = 100, yet every pair has A at half of B.
    const pairs = [pair(50, 100), pair(100, 200), pair(150, 300)];
    expect(judgeTarget({ min: 1 }, pairs).ratio?.median).toBe(0.5);
  });

  it('is met only when the median clears the target, an even count taking the mean of the middle two', () => {
    expect(judgeTarget({ min: 3 }, [pair(29, 10), pair(31, 10)]).met).toBe(true);
    expect(judgeTarget({ min: 3 }, [pair(29, 10), pair(30.9, 10), pair(40, 10), pair(20, 10)]).met).toBe(false);
    expect(judgeTarget({ min: 3 }, [pair(29, 10), pair(30.9, 10), pair(40, 10), pair(20, 10)]).ratio?.median).toBe(
      2.995,
    );
  });

  it('reports a ratio without a target as neither met nor missed', () => {
    expect(judgeTarget({ min: null }, [pair(1, 2)]).met).toBeNull();
  });

  it('keeps failed sides in the verdict and never counts a target with a failed pair as met', () => {
    const failed: PairRun = { a: side(null, 'exit 1: boom'), b: side(result(100)) };
    const withErrors: PairRun = { a: side(result(500)), b: side(result(100, { errors: 3, firstError: 'E: x' })) };
    const verdict = judgeTarget({ min: 1 }, [pair(500, 100), failed, withErrors, pair(400, 100), pair(600, 100)]);
    expect(verdict.pairRatios).toEqual([5, null, null, 4, 6]);
    expect(verdict.cleanPairs).toBe(3);
    expect(verdict.ratio?.median).toBe(5);
    expect(verdict.problems).toEqual(['pair 2 A: exit 1: boom', 'pair 3 B: 3 errors; E: x']);
    expect(verdict.met).toBe(false);
  });

  it('a storm target needs handler runs == expected on side A (and B when it reports) in every pair', () => {
    const storm = (runsA: number, runsB?: number): PairRun => ({
      a: side(result(100, { handlerRuns: runsA, expectedHandlerRuns: 50 })),
      b: side(result(100, runsB === undefined ? {} : { handlerRuns: runsB, expectedHandlerRuns: 50 })),
    });
    expect(judgeTarget({ min: null, exactlyOnce: true }, [storm(50), storm(50, 50)])).toMatchObject({
      exactlyOnce: true,
      met: true,
    });
    expect(judgeTarget({ min: null, exactlyOnce: true }, [storm(50), storm(51)])).toMatchObject({
      exactlyOnce: false,
      met: false,
    });
    expect(judgeTarget({ min: null, exactlyOnce: true }, [storm(50, 49)]).met).toBe(false);
    // The ratio can clear its target while the handler ran twice: still missed.
    expect(judgeTarget({ min: 0.5, exactlyOnce: true }, [storm(50), storm(52)]).met).toBe(false);
    // A side that reports no handler runs cannot prove exactly-once.
    expect(judgeTarget({ min: null, exactlyOnce: true }, [pair(1, 1)]).exactlyOnce).toBe(false);
  });
});

describe('npm run bench arguments', () => {
  it('parses --only as a comma list, repeated or with =, and --list', () => {
    expect(parseBenchArgs([])).toEqual({ only: null, list: false });
    expect(parseBenchArgs(['--only', 'a,b', '--only=c'])).toEqual({ only: ['a', 'b', 'c'], list: false });
    expect(parseBenchArgs(['--list']).list).toBe(true);
  });

  it('refuses --only without ids and unknown flags', () => {
    expect(() => parseBenchArgs(['--only'])).toThrow('--only needs target ids');
    expect(() => parseBenchArgs(['--only', ','])).toThrow('--only needs target ids');
    expect(() => parseBenchArgs(['--only', '--list'])).toThrow('--only needs target ids');
    expect(() => parseBenchArgs(['--quick'])).toThrow('unknown argument --quick');
  });

  it('selects targets by id or id prefix, in their own order, and names unknown ids', () => {
    const all = [{ id: 'pg-c1' }, { id: 'pg-c64' }, { id: 'redis-vs-bare' }];
    expect(selectTargets(all, null)).toEqual(all);
    expect(selectTargets(all, ['redis-vs-bare', 'pg-c1']).map((t) => t.id)).toEqual(['pg-c1', 'redis-vs-bare']);
    expect(selectTargets(all, ['pg-*']).map((t) => t.id)).toEqual(['pg-c1', 'pg-c64']);
    expect(() => selectTargets(all, ['pg-c8'])).toThrow('no target pg-c8; known: pg-c1, pg-c64, redis-vs-bare');
  });
});

describe('side output and side arguments', () => {
  it('reads the SideResult from the last stdout line', () => {
    const line = JSON.stringify(result(123));
    expect(parseSideOutput(`progress\n${line}\n\n`)).toMatchObject({ opsPerSec: 123, errors: 0 });
    expect(parseSideOutput('')).toBe('no result line on stdout');
    expect(parseSideOutput('done')).toMatch(/^last stdout line is not JSON/);
    expect(parseSideOutput('{"opsPerSec":1}')).toMatch(/^result line lacks p50Ms, p99Ms, operations, errors/);
  });

  it('parses the subject side flags with durations shortened under BENCH_QUICK', () => {
    const args = parseSubjectSideArgs(
      ['--subject', 'postgres/bare', '--workload', 'storm', '--concurrency', '64'],
      false,
    );
    expect(args).toMatchObject({
      subject: 'postgres/bare',
      workload: 'storm',
      concurrency: 64,
      copies: 10,
      seconds: 1.5,
    });
    expect(parseSubjectSideArgs(['--subject', 'memory/bare'], true)).toMatchObject({
      seconds: 0.4,
      warmupSeconds: 0.2,
    });
    expect(() => parseSubjectSideArgs(['--workload', 'unique'], false)).toThrow('--subject <id> is required');
    expect(() => parseSubjectSideArgs(['--subject', 'x', '--concurrency', '0'], false)).toThrow('positive number');
    expect(() => parseSubjectSideArgs(['--subject', 'x', '--workload', 'soak'], false)).toThrow('unique or storm');
    expect(() => parseSubjectSideArgs(['--subject', 'x', '--pool', '3'], false)).toThrow('unknown flag --pool');
    expect(() => parseHttpSideArgs(['--route', 'fastify-bare'], false)).toThrow('--backend');
  });

  it('warms an HTTP side up for 5 s before a timed rate, 1 s before a storm, 0.2 s under BENCH_QUICK', () => {
    const http = (workload: string, quick: boolean) =>
      parseHttpSideArgs(['--route', 'fastify-bare', '--backend', 'memory', '--workload', workload], quick);
    expect(http('unique', false).warmupSeconds).toBe(5);
    expect(http('storm', false).warmupSeconds).toBe(1);
    expect(http('unique', true).warmupSeconds).toBe(0.2);
  });
});

describe('the core targets', () => {
  it('warm both sides of every Redis unique row up alike (5 s), the SQL rows for the default 1 s', () => {
    const warmupOf = (side: { readonly args: readonly string[] }) => {
      const at = side.args.indexOf('--warmup-seconds');
      return at < 0 ? null : side.args[at + 1];
    };
    for (const id of ['redis-vs-bare', 'redis-vs-node-idempotency']) {
      const target = coreTargets.find((t) => t.id === id)!;
      expect([warmupOf(target.a), warmupOf(target.b)]).toEqual(['5', '5']);
    }
    const guard = coreTargets.find((t) => t.id === 'postgres-guard')!;
    expect([warmupOf(guard.a), warmupOf(guard.b)]).toEqual([null, null]);
  });

  it('are well formed, with unique ids, and every in-process side names a subject that loads', async () => {
    expect(targetProblems('core.ts', coreTargets)).toEqual([]);
    expect(new Set(coreTargets.map((t) => t.id)).size).toBe(coreTargets.length);
    const subjects = new Set(
      coreTargets.flatMap((t) => [t.a, t.b]).flatMap((s) => (s.script.endsWith('subject-side.ts') ? [s.args[1]!] : [])),
    );
    for (const id of subjects) expect((await loadSubject(id)).id).toBe(id);
  });

  it('hold the batched sweep with its goals', () => {
    const min = (id: string) => coreTargets.find((t) => t.id === id)?.min;
    expect([1, 8, 64, 256].map((c) => min(`postgres-batched-c${c}`))).toEqual([0.9, null, 3, null]);
    expect([1, 8, 64, 256].map((c) => min(`mysql-batched-c${c}`))).toEqual([0.9, null, 2, null]);
    expect(coreTargets.filter((t) => t.id.endsWith('-storm')).every((t) => t.exactlyOnce === true)).toBe(true);
    expect(min('redis-vs-node-idempotency')).toBe(1.2);
    expect(min('redis-vs-bare')).toBe(0.95);
    expect(min('http-fastify-adapter-memory')).toBe(0.8);
    expect(min('http-fastify-adapter-redis')).toBe(0.8);
  });

  it('hold an A/A noise-floor row: the same HTTP side on both ends, no goal, as many pairs as the HTTP goals', () => {
    const noise = coreTargets.find((t) => t.id === 'http-noise-floor-memory')!;
    const adapter = coreTargets.find((t) => t.id === 'http-fastify-adapter-memory')!;
    expect(noise.a).toEqual(noise.b);
    expect(noise.a).toEqual(adapter.b);
    expect(noise.min).toBeNull();
    expect(noise.pairs).toBe(adapter.pairs);
  });
});

describe('the two sides of every target warm up alike', () => {
  const warmupOf = (args: readonly string[]): string | undefined => {
    const at = args.indexOf('--warmup-seconds');
    return at === -1 ? undefined : args[at + 1];
  };

  it('gives side A and side B the same --warmup-seconds in every core target', () => {
    for (const target of coreTargets) {
      expect({ id: target.id, warmup: warmupOf(target.a.args) }).toEqual({
        id: target.id,
        warmup: warmupOf(target.b.args),
      });
    }
  });

  it('warms up every row of the batched sweep for 4 s (their timed part would fall in the JIT ramp after 1 s)', () => {
    const sweep = coreTargets.filter((t) => /^(postgres|mysql)-batched-c\d+$/.test(t.id));
    expect(sweep.map((t) => t.id)).toHaveLength(8);
    for (const target of sweep) expect(warmupOf(target.a.args)).toBe('4');
  });
});

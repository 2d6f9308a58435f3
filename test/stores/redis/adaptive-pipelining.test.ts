import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import {
  ADAPTIVE_PIPELINING_DEFAULTS,
  AdaptivePipelining,
  type AdaptivePipeliningSettings,
  PIPELINING_AGREEMENT,
} from '../../../packages/payonce/src/stores/redis/adaptive-pipelining.js';
import { type CorkableStream, TickPipeline } from '../../../packages/payonce/src/stores/redis/tick-pipeline.js';

const SMALL: AdaptivePipeliningSettings = {
  warmup: 10,
  window: 20,
  pairs: 3,
  extensions: 0,
  settledMs: 1_000,
  minGain: 0.05,
};

/**
 * Drives a chooser with a simulated load: every command sent advances the clock by `corkedMs` or `plainMs`,
 * whichever way the chooser is corking when the command goes out (a closed loop: the faster way sends more
 * commands per ms). Returns the corking state seen by each command.
 */
function drive(
  chooser: AdaptivePipelining,
  clock: { now: number },
  commands: number,
  costMs: { corked: number; plain: number },
): boolean[] {
  const seen: boolean[] = [];
  for (let i = 0; i < commands; i++) {
    chooser.sent();
    seen.push(chooser.corking);
    clock.now += chooser.corking ? costMs.corked : costMs.plain;
  }
  return seen;
}

function chooser(settings = SMALL) {
  const clock = { now: 0 };
  return { clock, chooser: new AdaptivePipelining(settings, () => clock.now) };
}

/** Commands of one whole probe after the warm-up; the probe decides as the next command is sent. */
const PROBE = 2 * SMALL.pairs * SMALL.window;
const DECIDED = SMALL.warmup + PROBE + 1;

describe('AdaptivePipelining', () => {
  it('sends uncorked through the warm-up, then probes both ways in pairs whose order flips', () => {
    const { clock, chooser: c } = chooser();
    const seen = drive(c, clock, SMALL.warmup + PROBE, { corked: 1, plain: 1 });
    expect(seen.slice(0, SMALL.warmup).every((corking) => !corking)).toBe(true);
    const windows = Array.from({ length: 2 * SMALL.pairs }, (_, w) =>
      seen.slice(SMALL.warmup + w * SMALL.window, SMALL.warmup + (w + 1) * SMALL.window),
    );
    // Each window is one way throughout; pair 0 goes plain then corked, pair 1 corked then plain, and so on.
    expect(windows.map((w) => new Set(w).size)).toEqual(Array(2 * SMALL.pairs).fill(1));
    expect(windows.map((w) => w[0])).toEqual([false, true, true, false, false, true]);
  });

  it('corks when corked windows send faster, and says what it measured', () => {
    const { clock, chooser: c } = chooser();
    drive(c, clock, DECIDED, { corked: 1, plain: 1.5 });
    expect(c.corking).toBe(true);
    expect(c.lastProbe?.corking).toBe(true);
    expect(c.lastProbe?.ratios).toHaveLength(SMALL.pairs);
    for (const ratio of c.lastProbe?.ratios ?? []) expect(ratio).toBeCloseTo(1.5, 5);
    // Settled: every command is corked until the next probe.
    expect(drive(c, clock, 200, { corked: 1, plain: 1.5 }).every((corking) => corking)).toBe(true);
  });

  it('stays uncorked when corking is slower, and when it gains less than minGain', () => {
    for (const corked of [2, 0.97]) {
      const { clock, chooser: c } = chooser();
      drive(c, clock, DECIDED, { corked, plain: 1 });
      expect(c.corking).toBe(false);
      expect(c.lastProbe?.corking).toBe(false);
      expect(drive(c, clock, 50, { corked, plain: 1 }).some((corking) => corking)).toBe(false);
    }
  });

  it('decides by the median pair, so one disturbed pair does not flip the choice', () => {
    const { clock, chooser: c } = chooser();
    drive(c, clock, SMALL.warmup, { corked: 1, plain: 1 });
    // Pair 0 (plain window first) has its plain window slowed down by something else on the host, so corked looks
    // faster there; the other two pairs show corking 2× slower.
    drive(c, clock, SMALL.window, { corked: 1, plain: 4 });
    drive(c, clock, PROBE - SMALL.window + 1, { corked: 2, plain: 1 });
    // Pair 0: corked 0.5 command/ms ÷ plain 0.25 = 2; pairs 1 and 2: 0.5 ÷ 1.
    expect(c.lastProbe?.ratios.map((r) => Math.round(r * 100) / 100)).toEqual([2, 0.5, 0.5]);
    expect(c.corking).toBe(false);
    // 2 of 3 pairs agree with the median: below 3 in 4, and no extension allowed here.
    expect(c.lastProbe?.disputed).toBe(true);
  });

  /** Per window of a probe, the cost per command of each way; `null` = the normal costs `base`. */
  function driveWindows(
    c: AdaptivePipelining,
    clock: { now: number },
    window: number,
    costs: readonly ({ corked: number; plain: number } | null)[],
    base: { corked: number; plain: number },
  ): void {
    for (const cost of costs) drive(c, clock, window, cost ?? base);
  }

  it('runs more pairs when its pairs disagree, and decides on the median of all of them', () => {
    const settings = { ...SMALL, extensions: 2 };
    const clock = { now: 0 };
    const c = new AdaptivePipelining(settings, () => clock.now);
    // Corking is 1.25× faster, but two of the first three pairs are disturbed against it (the host slowed their
    // corked window down): alone, their median would choose uncorked writes.
    const base = { corked: 1, plain: 1.25 };
    const slowCorked = { corked: 4, plain: 1.25 };
    drive(c, clock, SMALL.warmup, base);
    // Pair 0 is plain then corked, pair 1 corked then plain, pair 2 plain then corked.
    driveWindows(c, clock, SMALL.window, [null, slowCorked, slowCorked, null, null, null], base);
    expect(c.lastProbe).toBeNull();
    // Three more pairs, undisturbed: 4 of 6 pairs now show corking faster, still below 3 in 4…
    driveWindows(c, clock, SMALL.window, Array(6).fill(null), base);
    expect(c.lastProbe).toBeNull();
    // …and after the last extension 7 of 9 do (0.78): the probe decides, on the median of the 9 pairs.
    driveWindows(c, clock, SMALL.window, Array(6).fill(null), base);
    drive(c, clock, 1, base);
    expect(c.lastProbe?.ratios).toHaveLength(9);
    expect(c.lastProbe?.disputed).toBe(false);
    expect(c.lastProbe?.corking).toBe(true);
    expect(c.corking).toBe(true);
  });

  it('decides after its first pairs when they agree, and never runs more than pairs × (1 + extensions) pairs', () => {
    const settings = { ...SMALL, extensions: 2 };
    const agreeingClock = { now: 0 };
    const agreeing = new AdaptivePipelining(settings, () => agreeingClock.now);
    drive(agreeing, agreeingClock, DECIDED, { corked: 2, plain: 1 });
    expect(agreeing.lastProbe).toMatchObject({ corking: false, disputed: false });
    expect(agreeing.lastProbe?.ratios).toHaveLength(SMALL.pairs);

    // A host that alternates which way it slows down, window by window: every probe's pairs disagree.
    const clock = { now: 0 };
    const c = new AdaptivePipelining(settings, () => clock.now);
    drive(c, clock, SMALL.warmup, { corked: 1, plain: 1 });
    const windows = 2 * SMALL.pairs * 3;
    for (let w = 0; w < windows; w++) {
      const slowFirst = Math.floor(w / 2) % 3 === 0;
      drive(c, clock, SMALL.window, slowFirst ? { corked: 3, plain: 3 } : { corked: 1, plain: 1.5 });
    }
    drive(c, clock, 1, { corked: 1, plain: 1 });
    expect(c.lastProbe?.ratios).toHaveLength(3 * SMALL.pairs);
    expect(c.lastProbe?.disputed).toBe(true);
  });

  it('probes again once settledMs has passed, and follows a host that changed', () => {
    const { clock, chooser: c } = chooser();
    drive(c, clock, DECIDED, { corked: 1, plain: 2 });
    expect(c.corking).toBe(true);
    // The choice holds for settledMs (1 000 ms here: about 1 000 commands at 1 ms)…
    expect(drive(c, clock, 998, { corked: 1, plain: 2 }).every((corking) => corking)).toBe(true);
    // …then a new probe finds corking slower now.
    const seen = drive(c, clock, PROBE + 10, { corked: 3, plain: 1 });
    expect(seen.some((corking) => !corking)).toBe(true);
    expect(c.corking).toBe(false);
    expect(c.lastProbe?.corking).toBe(false);
  });

  it('rejects settings it cannot work with', () => {
    for (const bad of [
      { warmup: -1 },
      { window: 1 },
      { window: 2.5 },
      { pairs: 0 },
      { settledMs: Number.NaN },
      { minGain: -0.1 },
      // Not plain numbers: each would pass a `>= 0` test and break a probe's arithmetic much later (`1 + '0.05'`
      // is '10.05'; `now() + 10n` throws on a command).
      { minGain: '0.05' },
      { minGain: 10n },
      { settledMs: '30000' },
      { settledMs: 10n },
      { settledMs: null },
      { minGain: true },
      { minGain: [] },
      { settledMs: Number.POSITIVE_INFINITY },
      { minGain: Number.POSITIVE_INFINITY },
      { warmup: '10' },
      // Beyond any probe that could end.
      { window: 1e300 },
      { warmup: 1e300 },
      { pairs: 1e9 },
      { extensions: -1 },
      { extensions: 1.5 },
      { extensions: 11 },
      { extensions: '2' },
    ]) {
      expect(
        () => new AdaptivePipelining(bad as never),
        JSON.stringify(bad, (_k, v) => String(v)),
      ).toThrow(InvalidOption);
    }
    for (const notAClock of [5, 'now', null, {}]) {
      expect(() => new AdaptivePipelining({}, notAClock as never)).toThrow(/the clock must be a function/);
    }
    // `undefined` is the default (as TypeScript's optional properties allow writing it).
    expect(() => new AdaptivePipelining({ window: undefined, minGain: undefined } as never)).not.toThrow();
    for (const notAnObject of ['x', 5, null, []]) {
      expect(() => new AdaptivePipelining(notAnObject as never)).toThrow(/settings must be an object/);
    }
    expect(
      () => new AdaptivePipelining({ window: 2, pairs: 1, extensions: 0, warmup: 0, settledMs: 0, minGain: 0 }),
    ).not.toThrow();
  });

  it('a clock that reads no number (a bigint clock from untyped code) or stands still never throws from sent()', () => {
    let tick = 0n;
    const bigintClock = new AdaptivePipelining({ ...SMALL, extensions: 1 }, (() => tick++) as never);
    const still = new AdaptivePipelining({ ...SMALL, extensions: 1 }, () => 42);
    for (let i = 0; i < 5 * DECIDED; i++) {
      bigintClock.sent();
      still.sent();
    }
    for (const c of [bigintClock, still]) {
      // Nothing measured: no pair ratio, uncorked, and not called an agreement (the probe ran its extension).
      expect(c.lastProbe).toEqual({ ratios: [], corking: false, disputed: true });
      expect(c.corking).toBe(false);
    }
  });

  it('has defaults that probe about a second of load every 30 s, three when the pairs disagree', () => {
    expect(ADAPTIVE_PIPELINING_DEFAULTS).toEqual({
      warmup: 5_000,
      window: 5_000,
      pairs: 6,
      extensions: 2,
      settledMs: 30_000,
      minGain: 0.05,
    });
    expect(PIPELINING_AGREEMENT).toBe(0.75);
  });
});

describe('TickPipeline with a chooser', () => {
  it('corks a command only while its chooser is corking, and counts every command', async () => {
    const log: string[] = [];
    const socket: CorkableStream = { cork: () => log.push('cork'), uncork: () => log.push('uncork') };
    const clock = { now: 0 };
    const c = new AdaptivePipelining({ ...SMALL, warmup: 2 }, () => clock.now);
    const pipeline = new TickPipeline(() => [socket], c);
    pipeline.hold();
    pipeline.hold();
    expect(pipeline.holding).toBe(false);
    expect(log).toEqual([]); // the warm-up goes out uncorked
    // The probe's first window is plain, its second corked: skip to it.
    for (let i = 0; i < SMALL.window; i++) {
      clock.now += 1;
      pipeline.hold();
    }
    expect(log).toEqual([]);
    pipeline.hold(); // the first command of the corked window
    expect(pipeline.holding).toBe(true);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(log).toEqual(['cork', 'uncork']);
  });
});

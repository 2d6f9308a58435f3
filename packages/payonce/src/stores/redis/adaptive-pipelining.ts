import { InvalidOption } from '../../core/errors.js';

/** Tuning of `AdaptivePipelining` (all counts are commands of one store, durations in ms). */
export interface AdaptivePipeliningSettings {
  /** Commands sent uncorked and unmeasured before the first probe (the connection opening, the JIT warming up). */
  readonly warmup: number;
  /** Commands per probe window; only the second half of a window is measured (the first lets the callers settle). */
  readonly window: number;
  /** Probe pairs: each is one window corked and one not, in alternating order. */
  readonly pairs: number;
  /**
   * When a probe's pairs disagree (fewer than three in four of them on the side of the median), how many times it
   * may run `pairs` more pairs before it decides on the median of all of them.
   */
  readonly extensions: number;
  /** How long a choice holds before the next probe, in ms. */
  readonly settledMs: number;
  /** Corking is chosen only when it raises the median pair's rate by at least this fraction (0.05 = 5 %). */
  readonly minGain: number;
}

/**
 * Defaults: after 5 000 commands, a probe of 12 windows of 5 000 commands (about a second at 8 concurrent
 * deliveries on a 2-core machine) every 30 s; up to 36 windows when its pairs disagree.
 */
export const ADAPTIVE_PIPELINING_DEFAULTS: AdaptivePipeliningSettings = Object.freeze({
  warmup: 5_000,
  window: 5_000,
  pairs: 6,
  extensions: 2,
  settledMs: 30_000,
  minGain: 0.05,
});

/**
 * Share of a probe's pairs that must lie on the side of the median (corking `minGain` faster, or not) for the probe
 * to decide without more pairs: 3 in 4 (5 of 6 pairs, 9 of 12).
 */
export const PIPELINING_AGREEMENT = 0.75;

/** What the last probe measured: per pair, the rate of commands corked ÷ not corked; the choice it made. */
export interface PipeliningProbe {
  readonly ratios: readonly number[];
  readonly corking: boolean;
  /** True when the pairs still disagreed after every extension, so the median decided on its own. */
  readonly disputed: boolean;
}

/**
 * Chooses, from measurements of the store's own commands, whether `TickPipeline` corks: `pipelining: 'auto'`.
 *
 * Whether grouping a tick's commands into one socket write pays depends on the machine, not on payonce: where a
 * system call is cheap and the client has a core to itself, writing each command at once lets the client and Redis
 * work at the same time (packages/bench/notes/redis.md: 8 concurrent `guard.run` calls ran twice as fast
 * uncorked); where system calls are dear (a virtual machine with expensive context switches, a busy host) one write
 * per tick is the faster (Session 12: 25 000–34 000 deliveries/s corked against 14 000–26 000 uncorked on the same
 * machine an hour apart). The same host moves between the two.
 *
 * So the store measures both, the way the bench measures a ratio: after `warmup` commands sent uncorked (a process
 * that has just started is slower at first, which would count against whichever way went first), a probe runs
 * windows of `window` commands,
 * alternately corked and not (in pairs, the order flipping from pair to pair), takes the rate at which the store
 * sent commands in the second half of each window (the first half lets the callers leave the previous way's
 * rhythm), and computes each pair's ratio corked ÷ not corked. When the median ratio shows corking at least
 * `minGain` faster, the store corks until the next probe `settledMs` later; otherwise it writes each command at once.
 * A host whose speed moves within a second spreads the pair ratios widely (0.5–2.4 around a median gain of 1.2 on
 * the bench machine, packages/bench/notes/redis.md), and a median of 6 such pairs can land on the wrong side of
 * the line: so when fewer than `PIPELINING_AGREEMENT` of the pairs agree with their median, the probe runs `pairs`
 * more pairs (at most `extensions` times) and decides on the median of all of them.
 * With callers that wait for their answers (a worker pool, concurrent deliveries) the rate of sending is the
 * throughput; with a load that comes at its own pace (requests arriving slower than the store can serve them) both
 * ways send at that pace, the ratio is 1 and the store stays uncorked, which answers each command soonest.
 * (The time from send to reply would mislead: corked commands wait for the rest of their tick, so each takes longer
 * even where more of them complete per second.) Nothing here changes what a command does: Redis answers the
 * commands of one connection in order, corked or not. A probe that spans an outage or a stall of Redis
 * measures it too (failed commands are counted as sent) and may hold the slower way until the next probe: it costs
 * speed for at most `settledMs`, never a wrong reply.
 */
export class AdaptivePipelining {
  #corking = false;
  #probing = false;
  #settledUntil = Number.NEGATIVE_INFINITY;
  /** Commands still to send before the first probe. */
  #warmupLeft: number;
  /** Index of the current probe window (0 … 2 × the probe's pairs − 1). */
  #windowIndex = 0;
  /** Commands begun in the current window. */
  #begun = 0;
  /** When the measured second half of the current window began. */
  #measureFrom = 0;
  /** Commands per ms sent in the measured half of each window of the current probe. */
  #rates: number[] = [];
  /** Pairs the current probe runs before it next weighs them (grows by `pairs` with each extension). */
  #probePairs = 0;
  #last: PipeliningProbe | null = null;

  private readonly settings: AdaptivePipeliningSettings;
  private readonly clock: () => number;

  /**
   * @param settings any of `ADAPTIVE_PIPELINING_DEFAULTS` to change.
   * @param now a clock in ms (`performance.now` by default; tests pass their own). A reading that is not a number
   *   (or NaN) spoils only the windows it falls in: they are left out of the median, never a thrown error.
   * @throws {InvalidOption} when `now` is not a function; when `settings` is not an object, or a setting (other
   * than `undefined`, which means its default) is not a plain number in its range:
   * `warmup` an integer 0–10 000 000, `window` an integer 2–10 000 000, `pairs` an integer 1–1 000, `extensions` an
   * integer 0–10, `settledMs` 0–86 400 000 ms, `minGain` 0–100 (strings, bigints, `null`, NaN and ±Infinity are refused).
   */
  constructor(settings: Partial<AdaptivePipeliningSettings> = {}, now: () => number = () => performance.now()) {
    this.settings = checkedSettings(settings);
    if (typeof now !== 'function')
      throw new InvalidOption('pipelining', `the clock must be a function, got ${typeof now}`);
    this.clock = now;
    this.#warmupLeft = this.settings.warmup;
  }

  /** The clock's reading in ms; anything but a number (a bigint clock from untyped code) reads as NaN. */
  private now(): number {
    const reading: unknown = this.clock();
    return typeof reading === 'number' ? reading : Number.NaN;
  }

  /**
   * True for an object this class's constructor made (a brand check: an object merely created with its prototype has
   * none of its state and would fail on the store's first command).
   */
  static isInstance(value: unknown): value is AdaptivePipelining {
    return typeof value === 'object' && value !== null && #corking in value;
  }

  /** True when the store's commands are to be corked now. */
  get corking(): boolean {
    return this.#corking;
  }

  /** The last finished probe, or `null` before the first one ends. */
  get lastProbe(): PipeliningProbe | null {
    return this.#last;
  }

  /** Call as each command is sent, before asking `corking` how to send it. */
  sent(): void {
    if (!this.#probing) {
      if (this.#warmupLeft > 0) {
        this.#warmupLeft--;
        return;
      }
      if (this.now() < this.#settledUntil) return;
      this.#startProbe();
    } else if (this.#begun === this.settings.window) {
      // This command is the first after the window: it ends the window (and the probe after its last window).
      this.#closeWindow();
      if (!this.#probing) return;
    }
    this.#begun++;
    if (this.#begun === this.#half) this.#measureFrom = this.now();
  }

  /** The command of a window whose sending starts the measured half. */
  get #half(): number {
    return Math.ceil(this.settings.window / 2);
  }

  #startProbe(): void {
    this.#probing = true;
    this.#rates = [];
    this.#probePairs = this.settings.pairs;
    this.#windowIndex = 0;
    this.#openWindow();
  }

  /** Corked in the second window of even pairs and the first of odd ones. */
  #modeOf(index: number): boolean {
    const pair = Math.floor(index / 2);
    return index % 2 === (pair % 2 === 0 ? 1 : 0);
  }

  #openWindow(): void {
    this.#corking = this.#modeOf(this.#windowIndex);
    this.#begun = 0;
    this.#measureFrom = 0;
  }

  /** Ends the current window: its rate is the commands sent per ms from the `#half`-th to the first after it. */
  #closeWindow(): void {
    const elapsed = this.now() - this.#measureFrom;
    this.#rates.push(elapsed > 0 ? (this.settings.window + 1 - this.#half) / elapsed : Number.NaN);
    this.#windowIndex++;
    if (this.#windowIndex < 2 * this.#probePairs) {
      this.#openWindow();
      return;
    }
    this.#weigh();
  }

  /** After the probe's pairs so far: decides, or runs `pairs` more pairs when they disagree and it still may. */
  #weigh(): void {
    const ratios = this.#pairRatios();
    const median = medianOf(ratios);
    const line = 1 + this.settings.minGain;
    const corking = median !== null && median >= line;
    const agreeing = ratios.filter((ratio) => ratio >= line === corking).length;
    // No measured pair at all (a clock standing still) is not agreement either.
    const agreed = ratios.length > 0 && agreeing >= PIPELINING_AGREEMENT * ratios.length;
    const maxPairs = this.settings.pairs * (1 + this.settings.extensions);
    if (!agreed && this.#probePairs < maxPairs) {
      this.#probePairs += this.settings.pairs;
      this.#openWindow();
      return;
    }
    this.#corking = corking;
    this.#last = Object.freeze({ ratios: Object.freeze(ratios), corking, disputed: !agreed });
    this.#probing = false;
    this.#settledUntil = this.now() + this.settings.settledMs;
  }

  /** Each finished pair's rate corked ÷ not corked (a pair whose window measured no time is left out). */
  #pairRatios(): number[] {
    const ratios: number[] = [];
    for (let pair = 0; pair < this.#probePairs; pair++) {
      const first = this.#rates[2 * pair]!;
      const second = this.#rates[2 * pair + 1]!;
      const [corked, plain] = this.#modeOf(2 * pair) ? [first, second] : [second, first];
      const ratio = corked / plain;
      if (Number.isFinite(ratio) && ratio > 0) ratios.push(ratio);
    }
    return ratios;
  }
}

/** Largest `warmup` and `window`, in commands: beyond it a probe would never end on a real connection. */
const MAX_COMMANDS = 10_000_000;
/** Largest `pairs`: every pair keeps two rates until the probe ends. */
const MAX_PAIRS = 1_000;
/** Largest `extensions`: a probe of at most 11 × `pairs` pairs. */
const MAX_EXTENSIONS = 10;
/** Largest `settledMs`: one day. */
const MAX_SETTLED_MS = 86_400_000;
/** Largest `minGain`: corking 100 times faster. */
const MAX_GAIN = 100;

/** A plain number (not a string, bigint, boolean or `null`) within `min`…`max`, and an integer when asked. */
function numberWithin(value: unknown, min: number, max: number, integer: boolean): value is number {
  return (
    typeof value === 'number' &&
    value >= min &&
    value <= max &&
    (integer ? Number.isInteger(value) : Number.isFinite(value))
  );
}

/**
 * Defaults applied to `given`, each setting checked: only plain numbers within bounds pass, so a string or bigint
 * never reaches the arithmetic of a probe (where `1 + '0.05'` or `now() + 10n` would misbehave or throw on a
 * command much later). @throws {InvalidOption}
 */
function checkedSettings(given: unknown): AdaptivePipeliningSettings {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new InvalidOption('pipelining', `settings must be an object, got ${given === null ? 'null' : typeof given}`);
  }
  const defined = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  const { warmup, window, pairs, extensions, settledMs, minGain } = { ...ADAPTIVE_PIPELINING_DEFAULTS, ...defined };
  const bad = (name: string, rule: string, value: unknown) =>
    new InvalidOption(`pipelining.${name}`, `must be ${rule}, got ${typeof value === 'number' ? value : typeof value}`);
  if (!numberWithin(warmup, 0, MAX_COMMANDS, true)) throw bad('warmup', `an integer 0–${MAX_COMMANDS}`, warmup);
  if (!numberWithin(window, 2, MAX_COMMANDS, true)) throw bad('window', `an integer 2–${MAX_COMMANDS}`, window);
  if (!numberWithin(pairs, 1, MAX_PAIRS, true)) throw bad('pairs', `an integer 1–${MAX_PAIRS}`, pairs);
  if (!numberWithin(extensions, 0, MAX_EXTENSIONS, true)) {
    throw bad('extensions', `an integer 0–${MAX_EXTENSIONS}`, extensions);
  }
  if (!numberWithin(settledMs, 0, MAX_SETTLED_MS, false)) {
    throw bad('settledMs', `a number of ms 0–${MAX_SETTLED_MS}`, settledMs);
  }
  if (!numberWithin(minGain, 0, MAX_GAIN, false)) throw bad('minGain', `a number 0–${MAX_GAIN}`, minGain);
  return Object.freeze({ warmup, window, pairs, extensions, settledMs, minGain });
}

/** The median of `values`, or `null` when there are none. */
function medianOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The storm's seeded PRNG: mulberry32 over a 32-bit state. Every random choice of a run (order amounts, the
 * replica a crash kills, the sandbox's fault rules) comes from the run's seed, so `--seed S` replays the same
 * choices. Each scenario draws from its own stream (`forScenario`), so scenarios running at the same time do not
 * change each other's draws. Identities (customers, idempotency keys) stay random: they must be new in the app's
 * database on every run.
 */
export class StormRandom {
  private state: number;
  /** The choices drawn so far, in order (`amount 4521`, `replica 2`): the scenario's fault plan in the report. */
  readonly drawn: string[] = [];

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The stream of scenario `id` of a run seeded with `seed`. */
  static forScenario(seed: number, id: number): StormRandom {
    return new StormRandom((Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(id, 0x85ebca6b)) >>> 0);
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max), recorded as `<what> <value>` in {@link drawn}. */
  int(min: number, max: number, what: string): number {
    const value = min + Math.floor(this.next() * (max - min));
    this.drawn.push(`${what} ${value}`);
    return value;
  }
}

/** A fresh seed for a run that was given none: a positive 31-bit integer (printed, so it can be replayed). */
export function newStormSeed(): number {
  return 1 + Math.floor(Math.random() * 0x7ffffffe);
}

/**
 * The seed of the sandbox's fault draws for a run seeded with `seed` (its own stream, so the storm's draws and the
 * sandbox's do not share one): the storm sends it with `POST /_sandbox/seed` before the first scenario.
 */
export function sandboxSeedOf(seed: number): number {
  return Math.imul(seed >>> 0, 0x27d4eb2f) >>> 0;
}

import { InvalidOption } from 'payonce/internal/core/errors.js';
import { type FaultSet, mergeFaults, NO_FAULTS, parseFaults } from './fault-spec.js';

/** One fault rule as written in a `--faults` file or `POST /_sandbox/fault-rules`. */
export interface FaultRuleInput {
  /** HTTP method to match; any when absent. */
  readonly method?: string;
  /** Path pattern: `*` matches within one segment, `**` across segments (`/v1/payment_intents/*\/confirm`). @default '/**' */
  readonly path?: string;
  /** Faults to apply, in the `Payonce-Fault` syntax (`"drop-after-commit"`, `"delay=200, webhook-duplicate=2"`). */
  readonly fault: string;
  /** Chance to apply to a matching request, 0…1 (drawn from the seeded generator). @default 1 */
  readonly probability?: number;
  /** Applies to at most this many requests, then is spent. @default unlimited */
  readonly count?: number;
}

/** A `--faults` file: `{ "seed"?: number, "rules": FaultRuleInput[] }` (or just the array of rules). */
export interface FaultRulesFile {
  readonly seed?: number;
  readonly rules: readonly FaultRuleInput[];
}

interface FaultRule {
  readonly index: number;
  readonly method: string | null;
  readonly pattern: RegExp;
  readonly faults: FaultSet;
  readonly probability: number;
  left: number;
}

/** Which rules fired for a request and the faults they add up to. */
export interface RuleMatch {
  readonly faults: FaultSet;
  /** `rule:<index>` of each rule that fired. */
  readonly sources: readonly string[];
}

function patternOf(path: string): RegExp {
  const literal = (part: string) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const source = path
    .split('**')
    .map((chunk) => chunk.split('*').map(literal).join('[^/]*'))
    .join('.*');
  return new RegExp(`^${source}$`);
}

/** mulberry32: a small seeded generator, so a seed replays the same fault sequence. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Fault rules over API requests: each matching rule (method, path pattern) fires with its probability (from a
 * generator seeded with `seed`, so a run can be replayed) until its count is spent. Rules are checked in order and
 * their faults combine (later rules win on the same knob).
 */
export class FaultRules {
  private readonly rules: FaultRule[] = [];
  private random: () => number;

  constructor(seed = 1) {
    this.random = seeded(seed);
  }

  /** Restarts the generator with `seed`. */
  reseed(seed: number): void {
    this.random = seeded(seed);
  }

  /** Adds a rule. @throws {InvalidOption} a bad field or fault list. */
  add(input: FaultRuleInput): void {
    if (typeof input !== 'object' || input === null) throw new InvalidOption('fault rule', 'must be an object');
    const { method, path = '/**', fault, probability = 1, count } = input;
    if (method !== undefined && (typeof method !== 'string' || !/^[A-Za-z]{3,7}$/.test(method))) {
      throw new InvalidOption('fault rule method', 'must be an HTTP method');
    }
    if (typeof path !== 'string' || !path.startsWith('/') || path.length > 200) {
      throw new InvalidOption('fault rule path', 'must be a path pattern starting with /');
    }
    if (typeof fault !== 'string') throw new InvalidOption('fault rule fault', 'must be a fault list string');
    if (typeof probability !== 'number' || !(probability >= 0 && probability <= 1)) {
      throw new InvalidOption('fault rule probability', 'must be from 0 to 1');
    }
    if (count !== undefined && (!Number.isSafeInteger(count) || count < 1)) {
      throw new InvalidOption('fault rule count', 'must be a whole number ≥ 1');
    }
    this.rules.push({
      index: this.rules.length + 1,
      method: method === undefined ? null : method.toUpperCase(),
      pattern: patternOf(path),
      faults: parseFaults(fault),
      probability,
      left: count ?? Number.POSITIVE_INFINITY,
    });
  }

  /** Removes every rule. */
  clear(): void {
    this.rules.length = 0;
  }

  /** Number of rules with uses left. */
  get size(): number {
    return this.rules.filter((rule) => rule.left > 0).length;
  }

  /** The rules that fire for this request (each use counted). */
  take(method: string, path: string): RuleMatch {
    let faults = NO_FAULTS;
    const sources: string[] = [];
    for (const rule of this.rules) {
      if (rule.left <= 0 || (rule.method !== null && rule.method !== method) || !rule.pattern.test(path)) continue;
      if (rule.probability < 1 && this.random() >= rule.probability) continue;
      rule.left -= 1;
      faults = mergeFaults(faults, rule.faults);
      sources.push(`rule:${rule.index}`);
    }
    return { faults, sources };
  }
}

/**
 * Reads a `--faults` file's JSON: `{ seed?, rules: [...] }` or a bare array of rules.
 * @throws {InvalidOption} not that shape.
 */
export function faultRulesFileOf(value: unknown): FaultRulesFile {
  if (Array.isArray(value)) return { rules: value as FaultRuleInput[] };
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { rules?: unknown }).rules)) {
    throw new InvalidOption('faults file', 'must be { "seed"?: number, "rules": [...] } or an array of rules');
  }
  const { seed, rules } = value as { seed?: unknown; rules: FaultRuleInput[] };
  if (seed !== undefined && (typeof seed !== 'number' || !Number.isSafeInteger(seed))) {
    throw new InvalidOption('faults file seed', 'must be an integer');
  }
  return { seed: seed as number | undefined, rules };
}

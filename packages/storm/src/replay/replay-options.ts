import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { Capture } from './capture.js';
import type { DeliveryResult } from './replay-report.js';

/** Options of `replay()`. */
export interface ReplayOptions {
  /**
   * Base URL of the service, `http:` or `https:`, without query, fragment or credentials; each capture's path is
   * appended to its path.
   */
  readonly target: string | URL;
  /** The deliveries to send (from `readCaptureFile` / `parseCaptures`). At least one. */
  readonly captures: readonly Capture[];
  /** How many times each capture is sent, 1–1000. @default 1 */
  readonly copies?: number;
  /**
   * Requests in flight at once, 1–256. Copies of one capture may then arrive together, as provider retries do.
   * @default 1
   */
  readonly parallel?: number;
  /**
   * Send the copies of all captures in a seeded random order instead of file order (copies of a capture in a row).
   * @default false
   */
  readonly shuffle?: boolean;
  /** Seed of the shuffle (any text, at most 200 characters); a random one is chosen and reported when absent. */
  readonly seed?: string;
  /** Limit for one request, from sending to the end of the answer's body, ms (1–600000). @default 10_000 */
  readonly timeoutMs?: number;
  /** Called after each delivery with its result, the number done and the total (progress output). Must not throw. */
  readonly onDelivery?: (result: DeliveryResult, done: number, total: number) => void;
}

/** {@link ReplayOptions} checked, with defaults applied. */
export interface ResolvedReplayOptions {
  readonly target: URL;
  readonly captures: readonly Capture[];
  readonly copies: number;
  readonly parallel: number;
  readonly shuffle: boolean;
  readonly seed: string | null;
  readonly timeoutMs: number;
  readonly onDelivery: ((result: DeliveryResult, done: number, total: number) => void) | null;
}

function integer(value: number | undefined, fallback: number, min: number, max: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new InvalidOption(name, `must be an integer from ${min} to ${max}`);
  }
  return v;
}

/**
 * Parses the replay target: an absolute `http:`/`https:` URL without query, fragment or user info (the report
 * prints it, so it must not carry credentials).
 * @throws {InvalidOption} (`target`) anything else.
 * @example replayTarget('http://127.0.0.1:3000').href // 'http://127.0.0.1:3000/'
 */
export function replayTarget(target: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(target));
  } catch {
    throw new InvalidOption('target', 'must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidOption('target', 'must be an http:// or https:// URL');
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new InvalidOption('target', 'must not carry a query, a fragment or credentials');
  }
  return url;
}

/**
 * Checks `options` once and applies the defaults (copies 1, parallel 1, no shuffle, timeout 10 s); a shuffled
 * run without a seed gets a random one, returned so the report can print it.
 * @throws {InvalidOption} a bad target (see {@link replayTarget}), no capture, two captures with one id, a
 * number or seed out of range, or a seed without `shuffle`.
 */
export function resolveReplayOptions(options: ReplayOptions): ResolvedReplayOptions {
  const target = replayTarget(options.target);
  if (!Array.isArray(options.captures) || options.captures.length === 0) {
    throw new InvalidOption('captures', 'at least one capture is required');
  }
  const ids = new Set(options.captures.map((c) => c.id));
  if (ids.size !== options.captures.length) throw new InvalidOption('captures', 'two captures share an id');
  const shuffle = options.shuffle ?? false;
  if (typeof shuffle !== 'boolean') throw new InvalidOption('shuffle', 'must be a boolean');
  let seed: string | null = null;
  if (options.seed !== undefined) {
    if (typeof options.seed !== 'string' || options.seed === '' || options.seed.length > 200) {
      throw new InvalidOption('seed', 'must be a non-empty string of at most 200 characters');
    }
    if (!shuffle) throw new InvalidOption('seed', 'orders a shuffle: pass shuffle: true with it');
    seed = options.seed;
  }
  if (shuffle && seed === null) seed = crypto.randomUUID().slice(0, 8);
  if (options.onDelivery !== undefined && typeof options.onDelivery !== 'function') {
    throw new InvalidOption('onDelivery', 'must be a function');
  }
  return Object.freeze({
    target,
    captures: options.captures,
    copies: integer(options.copies, 1, 1, 1_000, 'copies'),
    parallel: integer(options.parallel, 1, 1, 256, 'parallel'),
    shuffle,
    seed: shuffle ? seed : null,
    timeoutMs: integer(options.timeoutMs, 10_000, 1, 600_000, 'timeoutMs'),
    onDelivery: options.onDelivery ?? null,
  });
}

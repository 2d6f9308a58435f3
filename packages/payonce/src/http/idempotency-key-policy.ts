import { InvalidOption } from '../core/errors.js';
import { MAX_TIMER_MS, nonNegativeInt, positiveInt } from '../core/options.js';
import { RequestKey } from '../core/request-key.js';
import { type RequestFingerprint, rawBodyFingerprint } from './request-fingerprint.js';

/** A method and route pattern, as `requireKey` sees them. */
export interface RouteRef {
  /** Upper-case method. */
  readonly method: string;
  /** Route pattern, e.g. `/v1/payments/:id`. */
  readonly route: string;
}

/**
 * What the Idempotency-Key layer does, independent of the web framework. The principal is found by the
 * adapter (`principal(req)` in its options), because only the framework knows where authentication put it.
 * @see draft-ietf-httpapi-idempotency-key-header-07; Stripe API reference "Idempotent requests"; docs/design.md §4.
 */
export interface IdempotencyKeyPolicy {
  /**
   * Methods the layer acts on; any other method passes straight through, its key ignored (GET, PUT and DELETE
   * are idempotent by definition). Compared upper-case. @default ['POST', 'PATCH'] (draft §1)
   */
  methods?: readonly string[];
  /**
   * Whether a request without the header is rejected with 400 (`IDEMPOTENCY_KEY_MISSING`); when false it runs
   * without idempotency. A present but malformed key is always 400. @default true (every covered route)
   */
  requireKey?: boolean | ((route: RouteRef) => boolean);
  /**
   * Response header names (case-insensitive) stored with the response and replayed; others are not stored
   * (the first response is still sent with all of its headers). `set-cookie` cannot be stored.
   * @default ['content-type', 'content-language', 'location']
   */
  storedHeaders?: readonly string[];
  /**
   * Age of a finished key, in milliseconds since it finished, after which it no longer replays: a reuse is a new
   * request, and `purge()` deletes it. Positive integer. @default 86_400_000 (24 h; Stripe: keys are removed
   * after they are at least 24 hours old)
   */
  expiryMs?: number;
  /** Fingerprint compared on every reuse of a key. @default rawBodyFingerprint (method + route + raw body bytes) */
  fingerprint?: RequestFingerprint;
  /** `RequestKey.provider` of every HTTP key, 1–160 characters. @default 'http' */
  namespace?: string;
  /**
   * How long (ms) a request whose key is still being processed by another request (on any replica sharing the
   * store) waits for that first request to finish before the 409 `REQUEST_IN_PROGRESS` + `Retry-After`: when it
   * finishes in time this request gets its stored response as a replay (`Idempotent-Replayed: true`), or runs as the
   * retry of a released (5xx) key. A client that disconnects stops waiting. See `GuardOptions.waitForInFlightMs`.
   * @default the guard's `waitForInFlightMs` (0: answer 409 at once, as the IETF draft describes)
   */
  waitForInFlightMs?: number;
}

/** `IdempotencyKeyPolicy` after defaults and validation. */
export interface ResolvedIdempotencyKeyPolicy {
  readonly methods: readonly string[];
  readonly requireKey: (route: RouteRef) => boolean;
  readonly storedHeaders: readonly string[];
  readonly expiryMs: number;
  readonly fingerprint: RequestFingerprint;
  readonly namespace: string;
  /** `undefined` = the guard's own default. */
  readonly waitForInFlightMs: number | undefined;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function headerNames(names: readonly string[], option: string): readonly string[] {
  return Object.freeze(
    names.map((name) => {
      if (typeof name !== 'string' || !TOKEN.test(name)) throw new InvalidOption(option, `bad header name ${name}`);
      const lower = name.toLowerCase();
      if (lower === 'set-cookie') throw new InvalidOption(option, 'set-cookie must not be stored and replayed');
      return lower;
    }),
  );
}

/**
 * Applies defaults and checks every option once.
 * @throws {InvalidOption} for an `expiryMs` that is not a positive finite integer, a bad method or header name,
 *   `set-cookie` in `storedHeaders`, a `namespace` that is not a valid `RequestKey` provider.
 */
export function resolveIdempotencyKeyPolicy(policy: IdempotencyKeyPolicy = {}): ResolvedIdempotencyKeyPolicy {
  const expiryMs = positiveInt('expiryMs', policy.expiryMs ?? 86_400_000);
  const methods = (policy.methods ?? ['POST', 'PATCH']).map((method) => {
    if (typeof method !== 'string' || !TOKEN.test(method)) throw new InvalidOption('methods', `bad method ${method}`);
    return method.toUpperCase();
  });
  const namespace = policy.namespace ?? 'http';
  try {
    new RequestKey(namespace, 'x');
  } catch (error) {
    throw new InvalidOption('namespace', error instanceof Error ? error.message : String(error));
  }
  const fingerprint = policy.fingerprint ?? rawBodyFingerprint;
  if (typeof fingerprint !== 'function') throw new InvalidOption('fingerprint', 'must be a function');
  const require = policy.requireKey ?? true;
  return Object.freeze({
    methods: Object.freeze(methods),
    requireKey: typeof require === 'function' ? require : () => require,
    storedHeaders: headerNames(
      policy.storedHeaders ?? ['content-type', 'content-language', 'location'],
      'storedHeaders',
    ),
    expiryMs,
    fingerprint,
    namespace,
    waitForInFlightMs:
      policy.waitForInFlightMs === undefined
        ? undefined
        : nonNegativeInt('waitForInFlightMs', policy.waitForInFlightMs, MAX_TIMER_MS),
  });
}

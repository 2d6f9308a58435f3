import { StripeApiError } from './wire/stripe-api-error.js';

/** How long Stripe keeps an idempotency key's result: 24 hours. @see https://docs.stripe.com/api/idempotent_requests */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

/** Longest key Stripe accepts: 255 characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The stored answer of a request that ran, replayed for the same key and parameters. */
export interface StoredAnswer {
  /** Method, path and canonical parameters of the first request. */
  readonly fingerprint: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: string;
  /** `Request-Id` of the first request (sent back as `Original-Request`). */
  readonly requestId: string;
  readonly storedAtMs: number;
}

/** What a key says about an incoming request. */
export type KeyState = { readonly kind: 'new' } | { readonly kind: 'replay'; readonly answer: StoredAnswer };

/**
 * Stripe's idempotency keys for POST requests: the first request with a key runs and its answer is stored for
 * {@link IDEMPOTENCY_KEY_TTL_MS} (sandbox clock); the same key with the same method, path and parameters gets the
 * stored answer (`Idempotent-Replayed: true`); other parameters → `400 idempotency_error`; the same key while the
 * first request still runs → `409 idempotency_error`. Requests that fail validation or conflict store nothing.
 * @see https://docs.stripe.com/api/idempotent_requests; https://docs.stripe.com/error-low-level#idempotency
 */
export class IdempotencyKeys {
  private readonly answers = new Map<string, StoredAnswer>();
  private readonly inFlight = new Set<string>();

  constructor(private readonly nowMs: () => number) {}

  /**
   * Checks `key` for a request and, when it is new, marks it in flight (call {@link store} or {@link release}).
   * @throws {StripeApiError} 400 key too long / reused with other parameters, 409 key in use.
   */
  begin(key: string, method: string, path: string, fingerprint: string): KeyState {
    if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw new StripeApiError(
        400,
        'invalid_request_error',
        `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long.`,
      );
    }
    if (this.inFlight.has(key)) {
      throw new StripeApiError(
        409,
        'idempotency_error',
        'There is currently another in-progress request using this Idempotent Key (that probably means you ' +
          'submitted twice, and the other request is still going through): ' +
          `${key.slice(0, 60)}. Please try again later.`,
      );
    }
    const stored = this.answers.get(key);
    if (stored !== undefined && this.nowMs() - stored.storedAtMs > IDEMPOTENCY_KEY_TTL_MS) this.answers.delete(key);
    else if (stored !== undefined) {
      if (stored.method !== method || stored.path !== path) {
        throw new StripeApiError(
          400,
          'idempotency_error',
          `Keys for idempotent requests can only be used for the same endpoint they were first used for ` +
            `('${stored.method} ${stored.path}' vs '${method} ${path}'). Try using a key other than ` +
            `'${key.slice(0, 60)}' if you meant to execute a different request.`,
        );
      }
      if (stored.fingerprint !== fingerprint) {
        throw new StripeApiError(
          400,
          'idempotency_error',
          'Keys for idempotent requests can only be used with the same parameters they were first used with. ' +
            `Try using a key other than '${key.slice(0, 60)}' if you meant to execute a different request.`,
        );
      }
      return { kind: 'replay', answer: stored };
    }
    this.inFlight.add(key);
    return { kind: 'new' };
  }

  /** Stores the answer of the request that holds `key` and frees the key. */
  store(key: string, answer: Omit<StoredAnswer, 'storedAtMs'>): void {
    this.answers.set(key, Object.freeze({ ...answer, storedAtMs: this.nowMs() }));
    this.inFlight.delete(key);
  }

  /** Frees `key` without storing (validation failed, the request never ran). */
  release(key: string): void {
    this.inFlight.delete(key);
  }

  /** Keys with a stored answer not yet expired. */
  get size(): number {
    const now = this.nowMs();
    return [...this.answers.values()].filter((a) => now - a.storedAtMs <= IDEMPOTENCY_KEY_TTL_MS).length;
  }
}

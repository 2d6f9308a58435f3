import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from 'payonce/internal/core/clock.js';
import { AuthThrottle } from './auth-throttle.js';

/** Name of the console's session cookie (HttpOnly, SameSite=Strict, Path=/). */
export const SESSION_COOKIE = 'payonce_console';

/** Header carrying the session's CSRF token on every state-changing console request. */
export const CSRF_HEADER = 'x-csrf-token';

/** A console session: opened by logging in with the admin token; the token itself is never kept in it. */
export interface AdminSession {
  readonly id: string;
  readonly operator: string;
  /** Sent back in `X-CSRF-Token` on every POST (synchronizer token; the cookie alone is never enough). */
  readonly csrfToken: string;
  readonly expiresAtMs: number;
}

/** Operator names: 1–64 visible ASCII characters. */
const OPERATOR = /^[\x21-\x7e]{1,64}$/;

/** The operator name `value` names, or `operator` when it is absent or not 1–64 visible ASCII characters. */
export function operatorName(value: unknown): string {
  return typeof value === 'string' && OPERATOR.test(value) ? value : 'operator';
}

/**
 * The admin token check and the console's sessions (in memory: a restart logs everyone out). The token is
 * compared in constant time whatever its length: both sides are first reduced to an HMAC-SHA256 under a random
 * per-process key, then compared with `timingSafeEqual`, so neither the length nor any prefix of the token leaks
 * through timing. Session ids and CSRF tokens are 32 random bytes (base64url). Wrong tokens are throttled per
 * client ({@link AuthThrottle}: `checkTokenFrom`).
 * @see OWASP Session Management and CSRF Prevention cheat sheets (synchronizer token, SameSite=Strict).
 */
export class AdminSessions {
  private readonly key = randomBytes(32);
  private readonly expected: Buffer;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly sessions = new Map<string, AdminSession>();
  private readonly throttle: AuthThrottle;

  /**
   * @param ttlMs session lifetime in ms. @default 28_800_000 (8 h)
   * @param throttle the failed-check limiter. @default `new AuthThrottle(clock)` (10 failures, then 10 a minute)
   */
  constructor(token: string, clock: Clock, ttlMs = 28_800_000, throttle = new AuthThrottle(clock)) {
    this.expected = this.digest(token);
    this.clock = clock;
    this.ttlMs = ttlMs;
    this.throttle = throttle;
  }

  private digest(value: string): Buffer {
    return createHmac('sha256', this.key).update(value, 'utf8').digest();
  }

  /** True when `given` is the admin token (constant time). Not throttled: requests use `checkTokenFrom`. */
  checkToken(given: string): boolean {
    return timingSafeEqual(this.digest(given), this.expected);
  }

  /**
   * True when `given` is the admin token, sent by `client` (its address); a wrong one counts against the client.
   * @throws {ServiceError} `ADMIN_AUTH_THROTTLED` (429) while the client has used up its failed checks (the token
   *   is then not checked at all).
   */
  checkTokenFrom(client: string, given: string): boolean {
    this.throttle.check(client);
    const ok = this.checkToken(given);
    if (!ok) this.throttle.fail(client);
    return ok;
  }

  /** Opens a session for `operator`. */
  open(operator: string): AdminSession {
    this.sweep();
    const session = Object.freeze({
      id: randomBytes(32).toString('base64url'),
      operator,
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAtMs: this.clock.now() + this.ttlMs,
    });
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session with this id, or `null` (unknown or expired). */
  find(id: string | undefined): AdminSession | null {
    if (id === undefined || id.length === 0 || id.length > 100) return null;
    const session = this.sessions.get(id);
    if (!session) return null;
    if (session.expiresAtMs <= this.clock.now()) {
      this.sessions.delete(id);
      return null;
    }
    return session;
  }

  /** True when `given` is the session's CSRF token (constant time). */
  checkCsrf(session: AdminSession, given: string | undefined): boolean {
    return timingSafeEqual(this.digest(given ?? ''), this.digest(session.csrfToken));
  }

  /** Ends a session. */
  close(id: string): void {
    this.sessions.delete(id);
  }

  /** Session lifetime in ms. */
  get lifetimeMs(): number {
    return this.ttlMs;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [id, session] of this.sessions) if (session.expiresAtMs <= now) this.sessions.delete(id);
  }
}

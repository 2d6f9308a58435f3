import type { ShownExchange } from '../acceptance/check-runner.js';
import { noAnswer } from '../acceptance/no-answer.js';

/** Where the sandbox sends Uzum Bank's webhooks, and the credentials it authorises them with. */
export interface UzumTarget {
  /** The base URL of the merchant's webhooks: Uzum Bank posts to `<merchantUrl>/check`, `/create`, … */
  readonly merchantUrl: string;
  /** The Basic-authorization login Uzum Bank issued. */
  readonly login: string;
  /** The Basic-authorization password. Never printed or recorded. */
  readonly password: string;
  /** The merchant's Uzum `serviceId`. */
  readonly serviceId: number;
  /** How long one call waits for its answer, ms. @default 10_000 */
  readonly callTimeoutMs?: number;
  /** Told every call once it ended (answered or not), with when it was sent (epoch ms): a storm's timeline. */
  readonly observe?: (exchange: UzumExchange, sentAtMs: number) => void;
}

/** How a call is authorised: the real credentials, a wrong password, or no `Authorization` at all. */
export type UzumAuthMode = 'basic' | 'wrong-password' | 'none';

/** One webhook call to make: the operation and its JSON body (`serviceId` and `timestamp` added unless given). */
export interface UzumCallSpec {
  /** `check`, `create`, `confirm`, `reverse` or `status`. */
  readonly operation: string;
  readonly fields?: Readonly<Record<string, unknown>>;
  /** @default 'basic' */
  readonly auth?: UzumAuthMode;
  /** Stop waiting for the answer after this many ms. */
  readonly abortAfterMs?: number;
}

/** One call as made and answered, with the password hidden. */
export interface UzumExchange extends ShownExchange {
  /** The parsed JSON answer, or `null` when the body is not a JSON object. */
  readonly answer: Readonly<Record<string, unknown>> | null;
}

const AUTH_TEXT: Readonly<Record<UzumAuthMode, string>> = Object.freeze({
  basic: 'Basic <login>:<password>',
  'wrong-password': 'Basic <login>:<wrong password>',
  none: 'no Authorization',
});

function authorization(target: UzumTarget, mode: UzumAuthMode): string | undefined {
  if (mode === 'none') return undefined;
  const password = mode === 'basic' ? target.password : `${target.password}-not-the-password`;
  return `Basic ${Buffer.from(`${target.login}:${password}`, 'utf8').toString('base64')}`;
}

function parseAnswer(text: string): Readonly<Record<string, unknown>> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Where a call goes: `<merchantUrl>/<operation>` (trailing slashes of the base dropped). */
export const uzumUrlOf = (target: UzumTarget, spec: UzumCallSpec): string =>
  `${target.merchantUrl.replace(/\/+$/, '')}/${spec.operation}`;

/**
 * Makes one Merchant API webhook call the way Uzum Bank does: HTTP POST of a JSON body `{ serviceId, timestamp,
 * … }` to `<merchantUrl>/<operation>` with `Authorization: Basic base64(login:password)`. Never throws for a
 * network failure or a bad answer: they are in the returned exchange (`status: null`, `answer: null`).
 * @see https://developer.uzumbank.uz/en/merchant/ ; fixtures uzum/protocol.json "transport", "authorization".
 */
export async function callUzum(
  target: UzumTarget,
  spec: UzumCallSpec,
  nowMs: number = Date.now(),
): Promise<UzumExchange> {
  const mode = spec.auth ?? 'basic';
  const body = JSON.stringify({ serviceId: target.serviceId, timestamp: nowMs, ...spec.fields });
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  const auth = authorization(target, mode);
  if (auth !== undefined) headers.authorization = auth;
  const base = { what: `/${spec.operation}`, auth: AUTH_TEXT[mode], body };
  const waitMs = spec.abortAfterMs ?? target.callTimeoutMs ?? 10_000;
  const sentAtMs = Date.now();
  let exchange: UzumExchange;
  try {
    const response = await fetch(uzumUrlOf(target, spec), {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(waitMs),
    });
    const received = await response.text();
    exchange = { ...base, status: response.status, received, answer: parseAnswer(received) };
  } catch (error) {
    exchange = { ...base, ...noAnswer(error, waitMs), answer: null };
  }
  target.observe?.(exchange, sentAtMs);
  return exchange;
}

import { noAnswer } from '../acceptance/no-answer.js';

/** Where the sandbox sends Merchant API calls and the cashbox key it signs them with. */
export interface PaymeTarget {
  /** The merchant's endpoint URL (what the Payme cabinet calls "endpoint"). */
  readonly merchantUrl: string;
  /** The cashbox key (the password of `Paycom:<key>`). Never printed or recorded. */
  readonly key: string;
  /** How long one call waits for its answer, ms. @default 10_000 */
  readonly callTimeoutMs?: number;
  /** Told every call once it ended (answered or not), with when it was sent (epoch ms): a storm's timeline. */
  readonly observe?: (exchange: PaymeExchange, sentAtMs: number) => void;
}

/** How a call is authorised: the real key, a wrong password, a wrong login, or no `Authorization` at all. */
export type PaymeAuthMode = 'key' | 'wrong-key' | 'wrong-login' | 'none';

/** A JSON-RPC answer as Payme reads it. */
export interface PaymeRpcAnswer {
  readonly id?: unknown;
  readonly result?: Readonly<Record<string, unknown>>;
  readonly error?: { readonly code: number; readonly message?: unknown; readonly data?: unknown };
}

/** One call as made and answered, with the key hidden: what a report shows. */
export interface PaymeExchange {
  readonly method: string;
  /** The authorisation sent, described (`Basic Paycom:<key>`, `Basic Paycom:<wrong key>`, `none`). */
  readonly auth: string;
  /** The body sent, exactly. */
  readonly body: string;
  /** The HTTP status, or `null` when no answer came (timeout, closed connection, dropped on purpose). */
  readonly status: number | null;
  /** The body received, or why nothing was. */
  readonly received: string;
  /** When no answer came: the network error's code (`ECONNREFUSED`, …) or `timeout`. */
  readonly failure?: string;
  /** The parsed JSON-RPC answer, or `null` when the body is not a JSON object. */
  readonly answer: PaymeRpcAnswer | null;
}

/** One call to make: a method and params (sent as JSON-RPC 2.0), or a raw body as is. */
export interface PaymeCallSpec {
  readonly method: string;
  readonly params?: Readonly<Record<string, unknown>>;
  /** Sent instead of the JSON-RPC envelope (malformed-JSON checks). */
  readonly rawBody?: string;
  /** @default 'key' */
  readonly auth?: PaymeAuthMode;
  /** Stop waiting for the answer after this many ms (a timeout Payme's side gives up on). */
  readonly abortAfterMs?: number;
}

const AUTH_TEXT: Readonly<Record<PaymeAuthMode, string>> = Object.freeze({
  key: 'Basic Paycom:<key>',
  'wrong-key': 'Basic Paycom:<wrong key>',
  'wrong-login': 'Basic <wrong login>:<key>',
  none: 'none',
});

let nextRpcId = 1;

function authorization(mode: PaymeAuthMode, key: string): string | undefined {
  const basic = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;
  if (mode === 'key') return basic(`Paycom:${key}`);
  if (mode === 'wrong-key') return basic(`Paycom:${key}-not-the-key`);
  if (mode === 'wrong-login') return basic(`Payme-sandbox-wrong-login:${key}`);
  return undefined;
}

function parseAnswer(text: string): PaymeRpcAnswer | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as PaymeRpcAnswer) : null;
  } catch {
    return null;
  }
}

/**
 * Makes one Merchant API call the way Payme does: HTTP POST of a JSON-RPC 2.0 body `{ jsonrpc, id, method, params }`
 * with `Authorization: Basic base64("Paycom:" + key)` and `Content-Type: application/json`. Never throws for a
 * network failure or a bad answer: they are in the returned exchange (`status: null`, `answer: null`).
 * @see https://developer.help.paycom.uz/metody-merchant-api/ (JSON-RPC over HTTPS POST, Basic auth with login
 *   "Paycom"); fixtures payme/auth/*.json.
 */
export async function callPayme(target: PaymeTarget, spec: PaymeCallSpec): Promise<PaymeExchange> {
  const mode = spec.auth ?? 'key';
  const body =
    spec.rawBody ?? JSON.stringify({ jsonrpc: '2.0', id: nextRpcId++, method: spec.method, params: spec.params ?? {} });
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  const auth = authorization(mode, target.key);
  if (auth !== undefined) headers.authorization = auth;
  const base = { method: spec.method, auth: AUTH_TEXT[mode], body };
  const waitMs = spec.abortAfterMs ?? target.callTimeoutMs ?? 10_000;
  const sentAtMs = Date.now();
  let exchange: PaymeExchange;
  try {
    const response = await fetch(target.merchantUrl, {
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

import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Dispatcher, request } from 'undici';
import type { Capture } from './capture.js';

/**
 * Connection-level headers a capture may hold (a proxy capture has them) that describe the original hop, not
 * the delivery: they are not re-sent; the client sets its own `host`, `content-length` and `connection`.
 * @see RFC 9110 §7.6.1 (Connection), §7.2 (Host), §8.6 (Content-Length); RFC 9112 §6.1 (Transfer-Encoding).
 */
export const NOT_RESENT_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

/** Bytes of an answer kept to read a problem+json `code` (the digest covers the whole body). */
const KEPT_BYTES = 65_536;
const MAX_ERROR_CHARS = 300;

/** The answer to one request, or why there was none. */
export interface SentDelivery {
  readonly status: number | null;
  readonly replayed: boolean;
  readonly problemCode: string | null;
  readonly bodySha256: string | null;
  readonly error: string | null;
  readonly durationMs: number;
}

/** The headers of `capture` to send: every captured header but {@link NOT_RESENT_HEADERS}. */
export function headersToSend(capture: Capture): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(capture.headers)) {
    if (!NOT_RESENT_HEADERS.has(name.toLowerCase())) out[name] = value;
  }
  return out;
}

function problemCodeOf(contentType: string, kept: Buffer): string | null {
  if (!contentType.toLowerCase().startsWith('application/problem+json')) return null;
  try {
    const body = JSON.parse(kept.toString('utf8')) as unknown;
    const code = typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

/** undici's own timeout codes (headers or body too slow): reported like the overall timeout. */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function errorText(error: unknown, timedOut: boolean, timeoutMs: number): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (timedOut || (typeof code === 'string' && TIMEOUT_CODES.has(code))) return `timeout after ${timeoutMs} ms`;
  const message = error instanceof Error ? error.message : String(error);
  const text = typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  return text.length <= MAX_ERROR_CHARS ? text : text.slice(0, MAX_ERROR_CHARS);
}

/**
 * Sends one capture to `url` with its exact body bytes and headers (but {@link NOT_RESENT_HEADERS}) through
 * `dispatcher` and reads the whole answer. Never throws: a non-2xx answer is a result, and a connection error or
 * timeout is reported in `error` with `status: null`.
 */
export async function sendDelivery(
  dispatcher: Dispatcher,
  url: URL,
  capture: Capture,
  timeoutMs: number,
): Promise<SentDelivery> {
  const started = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  try {
    const answer = await request(url, {
      method: capture.method as Dispatcher.HttpMethod,
      headers: headersToSend(capture),
      body: capture.method === 'GET' || capture.method === 'HEAD' ? null : capture.body,
      dispatcher,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const digest = createHash('sha256');
    const kept: Buffer[] = [];
    let keptBytes = 0;
    for await (const chunk of answer.body) {
      const bytes = chunk as Buffer;
      digest.update(bytes);
      if (keptBytes < KEPT_BYTES) {
        kept.push(bytes.subarray(0, KEPT_BYTES - keptBytes));
        keptBytes += Math.min(bytes.byteLength, KEPT_BYTES - keptBytes);
      }
    }
    const header = (name: string): string => {
      const value = answer.headers[name];
      return Array.isArray(value) ? value.join(', ') : (value ?? '');
    };
    return {
      status: answer.statusCode,
      replayed: header('idempotent-replayed').trim().toLowerCase() === 'true',
      problemCode: problemCodeOf(header('content-type'), Buffer.concat(kept)),
      bodySha256: digest.digest('hex'),
      error: null,
      durationMs: elapsed(),
    };
  } catch (error) {
    return {
      status: null,
      replayed: false,
      problemCode: null,
      bodySha256: null,
      error: errorText(error, signal.aborted, timeoutMs),
      durationMs: elapsed(),
    };
  }
}

import type { RequestKey } from '../../core/request-key.js';

/**
 * The fields of a receipt hash (the layout since issue #17; docs/design.md §3 "Redis: the receipt hash"):
 *
 * - `status` — the claim: `<attempts>:<p|f>:<claimed_at>:<fingerprint>`, where `p` is a held claim (processing, or
 *   completed once `d` exists), `f` a failed one, `claimed_at` Unix epoch ms, and `<fingerprint>` is `-` for none or
 *   `=` followed by the fingerprint (last, so it may contain `:`). Written by the claim's one `HSETNX`; the name is
 *   the field every receipt of the previous layout has, so that claim never lands on an old receipt
 *   (`legacy-receipt.ts`).
 * - `d` — the completion: `<finished_at>:<response status>:<n>:<headers JSON><body>`, `<n>` the UTF-8 byte length
 *   of the headers JSON, the body raw bytes to the end. Written only by the fenced completion (scripts/complete.ts).
 * - `e` — `<finished_at>:<error text>` while the claim is `f`.
 * - `w` — set by a duplicate that waits for this claim: the completer announces the finish only then.
 * - `t` — the W3C trace context (JSON) of the first delivery that ran the handler (`Store.recordReceiptTrace`), only
 *   written when an OpenTelemetry SDK is registered (scripts/record-trace.ts).
 */
export const CLAIM_FIELD = 'status';
export const COMPLETION_FIELD = 'd';
export const ERROR_FIELD = 'e';
export const TRACE_FIELD = 't';

/** The claim part of a receipt hash, parsed from `status`. */
export interface ClaimRecord {
  readonly attempts: number;
  readonly failed: boolean;
  readonly claimedAtMs: number;
  readonly fingerprint: string | null;
}

/** The packed `status` value of a claim. */
export function packClaim(attempts: number, claimedAtMs: number, fingerprint: string | null): string {
  return `${attempts}:p:${claimedAtMs}:${fingerprint === null ? '-' : `=${fingerprint}`}`;
}

/** True when a `status` value is a claim of this layout (it starts with a digit); old receipts hold a word there. */
export function isPackedClaim(text: string): boolean {
  const first = text.charCodeAt(0);
  return first >= 48 && first <= 57;
}

const decimal = (text: string): number => (/^\d+$/.test(text) ? Number(text) : Number.NaN);

/**
 * Parses a packed `status` value.
 * @throws {Error} if it is not one (the guard reports `StoreUnavailable`).
 */
export function parseClaim(text: string): ClaimRecord {
  const a = text.indexOf(':');
  const b = text.indexOf(':', a + 1);
  const c = text.indexOf(':', b + 1);
  const state = text.slice(a + 1, b);
  const attempts = decimal(text.slice(0, a));
  const claimedAtMs = decimal(text.slice(b + 1, c));
  const fingerprint = text.slice(c + 1);
  if (
    a < 0 ||
    c < 0 ||
    (state !== 'p' && state !== 'f') ||
    !(attempts >= 1) ||
    Number.isNaN(claimedAtMs) ||
    (fingerprint !== '-' && !fingerprint.startsWith('='))
  ) {
    throw new Error(`redis: bad claim field ${JSON.stringify(text.slice(0, 80))}`);
  }
  return {
    attempts,
    failed: state === 'f',
    claimedAtMs,
    fingerprint: fingerprint === '-' ? null : fingerprint.slice(1),
  };
}

/**
 * The packed completion value: text when the body is given as text (pure ASCII, the same bytes in UTF-8), else one
 * Buffer of the text head and the raw body bytes.
 */
export function packCompletion(
  finishedAtMs: number,
  status: number,
  headersJson: string,
  body: string | Buffer,
): string | Buffer {
  const head = `${finishedAtMs}:${status}:${Buffer.byteLength(headersJson, 'utf8')}:${headersJson}`;
  return typeof body === 'string' ? head + body : Buffer.concat([Buffer.from(head, 'utf8'), body]);
}

/** A parsed completion; `body` is a fresh copy that shares no memory with the reply. */
export interface CompletionRecord {
  readonly finishedAtMs: number;
  readonly status: number;
  readonly headersJson: string;
  readonly body: Uint8Array;
}

const COLON = 0x3a;

/**
 * Parses a packed completion value.
 * @throws {Error} if it is not one.
 */
export function parseCompletion(value: Buffer): CompletionRecord {
  const a = value.indexOf(COLON);
  const b = value.indexOf(COLON, a + 1);
  const c = value.indexOf(COLON, b + 1);
  const finishedAtMs = a > 0 ? decimal(value.toString('latin1', 0, a)) : Number.NaN;
  const status = b > a ? decimal(value.toString('latin1', a + 1, b)) : Number.NaN;
  const length = c > b ? decimal(value.toString('latin1', b + 1, c)) : Number.NaN;
  if (Number.isNaN(finishedAtMs) || Number.isNaN(status) || Number.isNaN(length) || c + 1 + length > value.length) {
    throw new Error('redis: bad completion field');
  }
  return {
    finishedAtMs,
    status,
    headersJson: value.toString('utf8', c + 1, c + 1 + length),
    body: new Uint8Array(value.subarray(c + 1 + length)),
  };
}

/** Parses the `e` field: finished_at and the error text. @throws {Error} if it is not one. */
export function parseFailure(value: Buffer): { readonly finishedAtMs: number; readonly error: string } {
  const text = value.toString('utf8');
  const colon = text.indexOf(':');
  const finishedAtMs = colon > 0 ? decimal(text.slice(0, colon)) : Number.NaN;
  if (Number.isNaN(finishedAtMs)) throw new Error('redis: bad error field');
  return { finishedAtMs, error: text.slice(colon + 1) };
}

/** Parses a stored headers JSON object (string values only), frozen. @throws {Error} for anything else. */
export function headersOf(json: string, key: RequestKey): Readonly<Record<string, string>> {
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`redis: receipt ${key.toString()} has bad response_headers`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new Error(`redis: receipt ${key.toString()} has bad header ${name}`);
    headers[name] = value;
  }
  return Object.freeze(headers);
}

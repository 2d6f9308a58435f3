import type { Receipt, ReceiptStatus, StoredResponse } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import { headersOf } from './receipt-fields.js';

const STATUSES: readonly ReceiptStatus[] = ['processing', 'completed', 'failed'];

function numberOf(text: string, field: string, key: RequestKey): number {
  const value = Number(text);
  if (text === '' || !Number.isFinite(value)) throw new Error(`redis: receipt ${key.toString()} has bad ${field}`);
  return value;
}

/**
 * The field names of a receipt hash of the previous layout (before issue #17): one field per receipt column.
 * `takeover` moves such a receipt to the current layout (scripts/takeover.ts), `purge` deletes it; both also take it
 * out of that layout's finished-at sorted sets.
 */
export const LEGACY_FIELDS = [
  'provider',
  'external_id',
  'attempts',
  'claimed_at',
  'finished_at',
  'fingerprint',
  'error',
  'response_status',
  'response_headers',
  'response_body',
] as const;

/**
 * A receipt hash written by the previous layout (fields `status` = `processing`/`completed`/`failed`, `attempts`,
 * `claimed_at`, `finished_at`, `fingerprint`, `error`, `response_status`, `response_headers` (JSON) and
 * `response_body` (raw bytes)) as a `Receipt`, so a store upgraded in place still replays, retries and purges the
 * receipts it wrote before. The body is copied into a fresh `Uint8Array`.
 * @throws {Error} if the hash is not such a receipt (the guard reports `StoreUnavailable`).
 */
export function legacyReceiptOf(key: RequestKey, fields: ReadonlyMap<string, Buffer>): Receipt {
  const text = (name: string): string | null => fields.get(name)?.toString('utf8') ?? null;
  const status = text('status') as ReceiptStatus | null;
  if (status === null || !STATUSES.includes(status)) {
    throw new Error(`redis: receipt ${key.toString()} has bad status ${String(status)}`);
  }
  const finishedAt = text('finished_at');
  let response: StoredResponse | null = null;
  if (status === 'completed') {
    const body = fields.get('response_body');
    const headers = text('response_headers');
    const code = text('response_status');
    if (body === undefined || headers === null || code === null) {
      throw new Error(`redis: completed receipt ${key.toString()} has no response`);
    }
    response = Object.freeze({
      status: numberOf(code, 'response_status', key),
      headers: headersOf(headers, key),
      body: new Uint8Array(body),
    });
  }
  return Object.freeze({
    key,
    status,
    attempts: numberOf(text('attempts') ?? '', 'attempts', key),
    claimedAtMs: numberOf(text('claimed_at') ?? '', 'claimed_at', key),
    finishedAtMs: status === 'processing' || finishedAt === null ? null : numberOf(finishedAt, 'finished_at', key),
    fingerprint: text('fingerprint'),
    response,
    error: status === 'failed' ? text('error') : null,
  });
}

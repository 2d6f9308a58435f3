import type { Receipt, ReceiptStatus, StoredResponse } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';

const STATUSES: readonly ReceiptStatus[] = ['processing', 'completed', 'failed'];

function fieldsOf(reply: unknown): Map<string, Buffer> {
  if (!Array.isArray(reply) || reply.length % 2 !== 0) {
    throw new Error(`redis: expected a field/value array, got ${typeof reply}`);
  }
  const fields = new Map<string, Buffer>();
  for (let i = 0; i < reply.length; i += 2) {
    const name: unknown = reply[i];
    const value: unknown = reply[i + 1];
    if (!Buffer.isBuffer(name) || !Buffer.isBuffer(value)) throw new Error('redis: hash field is not a bulk string');
    fields.set(name.toString('utf8'), value);
  }
  return fields;
}

function numberOf(text: string, field: string, key: RequestKey): number {
  const value = Number(text);
  if (text === '' || !Number.isFinite(value)) throw new Error(`redis: receipt ${key.toString()} has bad ${field}`);
  return value;
}

function headersOf(json: string, key: RequestKey): Readonly<Record<string, string>> {
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

/**
 * Turns the HGETALL reply of a receipt hash (bulk strings as `Buffer`s) into a `Receipt`, or `null` for an
 * empty reply (no such receipt). Text fields are UTF-8; `response_body` is copied byte for byte into a fresh
 * `Uint8Array` that shares no memory with the socket buffer.
 * @throws {Error} if the hash is not a receipt written by `RedisStore` (the guard reports `StoreUnavailable`).
 */
export function receiptOfReply(key: RequestKey, reply: unknown): Receipt | null {
  const fields = fieldsOf(reply);
  if (fields.size === 0) return null;
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

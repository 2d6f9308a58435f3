import type { Selectable } from 'kysely';
import type { Receipt, ReceiptStatus, StoredResponse } from '../../core/receipt.js';
import { RequestKey } from '../../core/request-key.js';
import type { ReceiptsTable } from './receipts-table.js';

/** A selected row: every column as the driver returns it. */
export type ReceiptRow = Selectable<ReceiptsTable>;

const STATUSES: readonly ReceiptStatus[] = ['processing', 'completed', 'failed'];
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A key column as a string: VARBINARY comes back as bytes and is decoded as UTF-8. */
export function keyText(value: string | Uint8Array): string {
  return typeof value === 'string' ? value : utf8.decode(value);
}

/** An integer column as a number (`pg` returns BIGINT as a string, safe-integer SQLite as a bigint). */
export function toInt(value: number | string | bigint, column: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`payonce_receipts.${column} is not a safe integer: ${String(value)}`);
  return n;
}

function toStatus(value: string): ReceiptStatus {
  if (!STATUSES.includes(value as ReceiptStatus)) throw new Error(`payonce_receipts.status is unknown: ${value}`);
  return value as ReceiptStatus;
}

/** A fresh `Uint8Array` with the column's bytes (never a view into a driver's pooled buffer). */
function toBytes(value: Uint8Array | null): Uint8Array {
  return value === null ? new Uint8Array(0) : new Uint8Array(value);
}

function toHeaders(json: string | null): Readonly<Record<string, string>> {
  const parsed: unknown = json === null ? {} : JSON.parse(json);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('payonce_receipts.response_headers is not a JSON object');
  }
  return Object.freeze({ ...(parsed as Record<string, string>) });
}

/** The frozen `Receipt` a row stores; the response only when `completed`, the error only when `failed`. */
export function toReceipt(row: ReceiptRow): Receipt {
  const status = toStatus(row.status);
  let response: StoredResponse | null = null;
  if (status === 'completed' && row.response_status !== null) {
    response = Object.freeze({
      status: toInt(row.response_status, 'response_status'),
      headers: toHeaders(row.response_headers),
      body: toBytes(row.response_body),
    });
  }
  return Object.freeze({
    key: new RequestKey(keyText(row.provider), keyText(row.external_id)),
    status,
    attempts: toInt(row.attempts, 'attempts'),
    claimedAtMs: toInt(row.claimed_at, 'claimed_at'),
    finishedAtMs: row.finished_at === null ? null : toInt(row.finished_at, 'finished_at'),
    fingerprint: row.fingerprint,
    response,
    error: status === 'failed' ? row.error : null,
  });
}

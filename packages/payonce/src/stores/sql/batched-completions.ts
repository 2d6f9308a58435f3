import type { StoredResponse } from '../../core/receipt.js';
import type { FinishRequest } from '../../core/store.js';
import { type BatchStatements, type CompleteRow, inKeyOrder, keyId } from './batch-statements.js';
import type { BatchEntry } from './batcher.js';
import { completeReceipt } from './complete-receipt.js';
import { isStatementError } from './driver-error.js';
import { type SqlContext, statement } from './sql-context.js';

/** The input of `Store.complete`. */
export type CompleteRequest = FinishRequest & { readonly response: StoredResponse };
type CompleteEntry = BatchEntry<CompleteRequest, boolean>;

/**
 * Responses of this many bytes or more (body plus headers JSON) are completed by their own statement: a large row
 * gains nothing from sharing a commit, and MariaDB 10.11 cuts a binary value over 65 535 bytes carried through the
 * batch's derived table (`select ? … union all …`) to its length modulo 65 536, so a batched body must stay well
 * below that.
 */
export const MAX_BATCHED_RESPONSE_BYTES = 16 * 1024;

/**
 * The most response bytes (bodies plus headers JSON) one multi-row completion statement carries; a larger batch is
 * sent as several statements in turn. Keeps a statement (hex-escaped by mysql2: twice the bytes) far below MySQL's
 * and MariaDB's `max_allowed_packet` (16 MiB default on MariaDB 10.11, 64 MiB on MySQL 8) whatever `maxBatchSize`.
 */
export const MAX_BATCH_STATEMENT_RESPONSE_BYTES = 1024 * 1024;

/** Bytes of a response as a completion row carries it: the body plus its headers JSON (UTF-16 length × 3 bound). */
function rowBytes(body: Uint8Array, headersJson: string): number {
  return body.byteLength + headersJson.length * 3;
}

/** True when `request` may share a multi-row completion (its response is small). */
export function batchable(request: CompleteRequest): boolean {
  return rowBytes(request.response.body, JSON.stringify(request.response.headers)) < MAX_BATCHED_RESPONSE_BYTES;
}

/** A queued completion with its row, built once per batch (the headers are serialised once). */
interface PreparedCompletion {
  readonly entry: CompleteEntry;
  readonly row: CompleteRow;
}

/** `prepared` in order, cut into runs whose responses add up to at most `MAX_BATCH_STATEMENT_RESPONSE_BYTES`. */
function byStatementSize(prepared: readonly PreparedCompletion[]): PreparedCompletion[][] {
  const chunks: PreparedCompletion[][] = [];
  let chunk: PreparedCompletion[] = [];
  let bytes = 0;
  for (const item of prepared) {
    const size = rowBytes(item.row.body, item.row.headersJson);
    if (chunk.length > 0 && bytes + size > MAX_BATCH_STATEMENT_RESPONSE_BYTES) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(item);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

async function completeAlone(ctx: SqlContext, entry: CompleteEntry): Promise<void> {
  try {
    entry.resolve(await completeReceipt(ctx, entry.item));
  } catch (error) {
    entry.reject(error);
  }
}

function rowOf(request: CompleteRequest): CompleteRow {
  const { key, attempt, nowMs, response } = request;
  return {
    key,
    attempt,
    nowMs,
    status: response.status,
    headersJson: JSON.stringify(response.headers),
    body: response.body,
  };
}

/**
 * Runs one batch of completions (`Batcher` runner) as ONE multi-row fenced UPDATE: a row changes only if it is still
 * `processing` at its caller's attempt, and each caller is told whether ITS row changed. The first call of a key is
 * in the statement; a second call of the same key in the batch runs alone after it (its fencing then decides). A
 * batch of one uses the single-row statement; a batch whose responses outgrow `MAX_BATCH_STATEMENT_RESPONSE_BYTES` is
 * sent as several statements; a row the statement did not change is tried again alone (it answers false only if
 * the claim is really lost). A statement error caused by the data (`isStatementError`) splits the
 * batch into single-row statements; any other error rejects every caller with the driver error.
 * @see docs/design.md §3 "Batched claims and completions".
 */
export async function runCompleteBatch(
  ctx: SqlContext,
  statements: BatchStatements,
  entries: readonly CompleteEntry[],
): Promise<void> {
  const first = new Map<string, CompleteEntry>();
  const later: CompleteEntry[] = [];
  for (const entry of entries) {
    const id = keyId(entry.item.key);
    if (first.has(id)) later.push(entry);
    else first.set(id, entry);
  }
  const prepared = inKeyOrder(first).map((entry): PreparedCompletion => ({ entry, row: rowOf(entry.item) }));
  for (const chunk of byStatementSize(prepared)) {
    if (chunk.length === 1) await completeAlone(ctx, chunk[0]!.entry);
    else await completeMany(ctx, statements, chunk);
  }
  for (const entry of later) await completeAlone(ctx, entry);
}

async function completeMany(
  ctx: SqlContext,
  statements: BatchStatements,
  prepared: readonly PreparedCompletion[],
): Promise<void> {
  const entries = prepared.map((item) => item.entry);
  let completed: ReadonlySet<string>;
  try {
    const rows = prepared.map((item) => item.row);
    completed = await statement(ctx, () => statements.completeReceipts(ctx, rows));
  } catch (error) {
    if (!isStatementError(error)) {
      for (const entry of entries) entry.reject(error);
      return;
    }
    await Promise.all(entries.map((entry) => completeAlone(ctx, entry)));
    return;
  }
  // A row the multi-row statement did not change is checked again by the single-row fenced UPDATE: on PostgreSQL the
  // batch reaches rows by the ctid it found before waiting for their locks, so a row another transaction updated in
  // between (still `processing` at the same attempt) is skipped although this caller holds it. The single-row
  // statement follows the row to its newest version; a claim that really was lost answers false there too.
  const missed: CompleteEntry[] = [];
  for (const entry of entries) {
    if (completed.has(keyId(entry.item.key))) entry.resolve(true);
    else missed.push(entry);
  }
  for (const entry of missed) await completeAlone(ctx, entry);
}

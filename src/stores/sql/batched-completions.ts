import type { StoredResponse } from '../../core/receipt.js';
import type { FinishRequest } from '../../core/store.js';
import { type BatchStatements, type CompleteRow, keyId } from './batch-statements.js';
import type { BatchEntry } from './batcher.js';
import { completeReceipt } from './complete-receipt.js';
import { isStatementError } from './driver-error.js';
import { type SqlContext, statement } from './sql-context.js';

/** The input of `Store.complete`. */
export type CompleteRequest = FinishRequest & { readonly response: StoredResponse };
type CompleteEntry = BatchEntry<CompleteRequest, boolean>;

/**
 * Responses larger than this many bytes (body plus headers JSON) are completed by their own statement: one batch of
 * large bodies could outgrow MySQL's `max_allowed_packet`, and a large row gains nothing from sharing a commit.
 */
export const MAX_BATCHED_RESPONSE_BYTES = 64 * 1024;

/** True when `request` may share a multi-row completion (its response is small). */
export function batchable(request: CompleteRequest): boolean {
  const { body, headers } = request.response;
  return body.byteLength <= MAX_BATCHED_RESPONSE_BYTES && JSON.stringify(headers).length <= MAX_BATCHED_RESPONSE_BYTES;
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
 * batch of one uses the single-row statement. A statement error caused by the data (`isStatementError`) splits the
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
  const rows = [...first.values()].sort((a, b) => {
    const x = keyId(a.item.key);
    const y = keyId(b.item.key);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  if (rows.length === 1) await completeAlone(ctx, rows[0]!);
  else await completeMany(ctx, statements, rows);
  for (const entry of later) await completeAlone(ctx, entry);
}

async function completeMany(ctx: SqlContext, statements: BatchStatements, entries: CompleteEntry[]): Promise<void> {
  let completed: ReadonlySet<string>;
  try {
    const rows = entries.map((entry) => rowOf(entry.item));
    completed = await statement(ctx, () => statements.completeReceipts(ctx, rows));
  } catch (error) {
    if (!isStatementError(error)) {
      for (const entry of entries) entry.reject(error);
      return;
    }
    await Promise.all(entries.map((entry) => completeAlone(ctx, entry)));
    return;
  }
  for (const entry of entries) entry.resolve(completed.has(keyId(entry.item.key)));
}

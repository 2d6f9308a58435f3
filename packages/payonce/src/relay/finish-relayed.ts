import type { Kysely } from 'kysely';
import { OUTBOX_TABLE, type OutboxDatabase } from '../outbox/outbox-tables.js';
import { type SqlTarget, transaction } from '../outbox/sql-transaction.js';
import { tablesIn } from '../stores/sql/table-namespace.js';
import type { RelayMessage } from './relay-message.js';

/** How a leased job ends its turn: `sent` (broker ack), `retry` at a time, `release` (not tried), `dead`. */
export type RelayFinish =
  | { readonly kind: 'sent' }
  | { readonly kind: 'retry'; readonly availableAtMs: number; readonly error: string }
  | { readonly kind: 'release' }
  | { readonly kind: 'dead'; readonly error: string };

function valuesOf(finish: RelayFinish, nowMs: number) {
  switch (finish.kind) {
    case 'sent':
      return { status: 'done', finished_at: nowMs, lease_owner: null, lease_expires_at: null, last_error: null };
    case 'dead':
      return {
        status: 'dead',
        finished_at: nowMs,
        lease_owner: null,
        lease_expires_at: null,
        last_error: finish.error,
      };
    case 'retry':
      return {
        status: 'queued',
        available_at: finish.availableAtMs,
        lease_owner: null,
        lease_expires_at: null,
        last_error: finish.error,
      };
    case 'release':
      return { status: 'queued', lease_owner: null, lease_expires_at: null };
  }
}

/**
 * Ends the lease of `messages` held by `relayId` with one outcome, inside `db` (an open transaction): one UPDATE
 * per claim count, fenced like the worker's (status `running`, `lease_owner = relayId`, `attempts` = the claim
 * count), so a relay whose lease expired and was taken over changes nothing. A released job gets its claim back
 * (`attempts − 1`): it was never tried. Times are epoch ms UTC.
 * @returns how many rows this relay still held and updated (the others were taken over).
 */
export async function finishIn(
  db: Kysely<OutboxDatabase>,
  relayId: string,
  messages: readonly RelayMessage[],
  finish: RelayFinish,
  nowMs: number,
): Promise<number> {
  if (messages.length === 0) return 0;
  const byAttempt = new Map<number, string[]>();
  for (const message of messages) {
    const ids = byAttempt.get(message.attempt) ?? [];
    ids.push(message.id);
    byAttempt.set(message.attempt, ids);
  }
  let updated = 0;
  for (const [attempt, ids] of byAttempt) {
    const values = valuesOf(finish, nowMs);
    const result = await db
      .updateTable(OUTBOX_TABLE)
      .set(finish.kind === 'release' ? { ...values, attempts: attempt - 1 } : values)
      .where('id', 'in', ids)
      .where('status', '=', 'running')
      .where('lease_owner', '=', relayId)
      .where('attempts', '=', attempt)
      .executeTakeFirst();
    updated += Number(result.numUpdatedRows);
  }
  return updated;
}

/** {@link finishIn} in a transaction of its own (retried after a transient error). */
export async function finishRelayed<DB>(
  target: SqlTarget<DB>,
  relayId: string,
  messages: readonly RelayMessage[],
  finish: RelayFinish,
  nowMs: number,
): Promise<number> {
  if (messages.length === 0) return 0;
  return transaction(target, (trx) =>
    finishIn(tablesIn<OutboxDatabase>(target, trx), relayId, messages, finish, nowMs),
  );
}

import type { Kysely } from 'kysely';
import type { SqlDialect } from '../stores/sql/sql-dialect.js';
import { ACTIVE_ATTEMPT_STATUSES, type AttemptStatus } from './attempt-status.js';
import { type PaymentAttempt, toAttempt } from './payment-attempt.js';
import { ATTEMPTS_TABLE, type PaymentsDatabase } from './payments-tables.js';
import { isStoredId } from './stored-id.js';

/**
 * The order's active attempt (`creating`, `pending`, `requires_action`, `unknown`), or `null`. A plain read:
 * call it after `lockOrder`, which serialises every writer of this order's attempts (on MySQL the transaction's
 * snapshot is taken by this first consistent read, after the lock, so it sees the last committed attempt).
 */
export async function findActiveAttempt(db: Kysely<PaymentsDatabase>, orderId: string): Promise<PaymentAttempt | null> {
  const row = await db
    .selectFrom(ATTEMPTS_TABLE)
    .selectAll()
    .where('order_id', '=', orderId)
    .where('status', 'in', [...ACTIVE_ATTEMPT_STATUSES])
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/** Reads one attempt by id with a row lock on PostgreSQL/MySQL (call after `lockOrder`); `null` if absent. */
export async function lockAttempt(
  db: Kysely<PaymentsDatabase>,
  dialect: SqlDialect,
  attemptId: string,
): Promise<PaymentAttempt | null> {
  const row = await db
    .selectFrom(ATTEMPTS_TABLE)
    .selectAll()
    .where('id', '=', attemptId)
    .$if(dialect.name !== 'sqlite', (query) => query.forUpdate())
    .executeTakeFirst();
  return row ? toAttempt(row) : null;
}

/**
 * Finds the attempt an event is about, without locking: by (provider, provider payment id) first, else by the
 * merchant reference (the attempt id). `null` when neither matches yet (the event goes to the inbox).
 */
export async function locateAttempt(
  db: Kysely<PaymentsDatabase>,
  provider: string,
  paymentId: string | null,
  merchantReference: string | null,
): Promise<PaymentAttempt | null> {
  if (paymentId !== null) {
    const row = await db
      .selectFrom(ATTEMPTS_TABLE)
      .selectAll()
      .where('provider', '=', provider)
      .where('provider_payment_id', '=', paymentId)
      .executeTakeFirst();
    if (row) return toAttempt(row);
  }
  if (isStoredId(merchantReference)) {
    const row = await db.selectFrom(ATTEMPTS_TABLE).selectAll().where('id', '=', merchantReference).executeTakeFirst();
    if (row) return toAttempt(row);
  }
  return null;
}

/** What `updateAttempt` may change. */
export interface AttemptChange {
  readonly status?: AttemptStatus;
  readonly providerPaymentId?: string;
  readonly actionUrl?: string | null;
  readonly lastError?: string | null;
}

/** Writes `change` to the attempt; the caller holds the locks and has checked the transition. */
export async function updateAttempt(
  db: Kysely<PaymentsDatabase>,
  attemptId: string,
  change: AttemptChange,
  nowMs: number,
): Promise<void> {
  await db
    .updateTable(ATTEMPTS_TABLE)
    .set({
      updated_at: nowMs,
      ...(change.status === undefined ? {} : { status: change.status }),
      ...(change.providerPaymentId === undefined ? {} : { provider_payment_id: change.providerPaymentId }),
      ...(change.actionUrl === undefined ? {} : { action_url: change.actionUrl }),
      ...(change.lastError === undefined ? {} : { last_error: change.lastError }),
    })
    .where('id', '=', attemptId)
    .execute();
}

import type { Kysely } from 'kysely';
import { ACTIVE_ATTEMPT_STATUSES } from './attempt-status.js';
import type { JournalEntry, PaymentDecision } from './journal-entry.js';
import { toJournalEntry } from './journal-entry.js';
import type { PaymentAttempt } from './payment-attempt.js';
import type { PaymentReport } from './payment-report.js';
import { ATTEMPTS_TABLE, PAYMENT_EVENTS_TABLE, type PaymentsDatabase } from './payments-tables.js';

/** Longest stored reason, in characters. */
const MAX_REASON_CHARS = 1_000;

/** The decision written to the journal for one report. */
export interface JournalDecision {
  readonly decision: PaymentDecision;
  readonly reason: string | null;
  readonly attemptId: string | null;
  readonly orderId: string | null;
}

function bounded(text: string | null): string | null {
  return text === null ? null : Array.from(text).slice(0, MAX_REASON_CHARS).join('');
}

/** Inserts the journal row of `report` with its decision (the primary key is (provider, eventId)). */
export async function insertJournal(
  db: Kysely<PaymentsDatabase>,
  report: PaymentReport,
  decision: JournalDecision,
  nowMs: number,
): Promise<void> {
  await db
    .insertInto(PAYMENT_EVENTS_TABLE)
    .values({
      provider: report.provider,
      event_id: report.eventId,
      event_type: report.eventType,
      status: report.status,
      provider_payment_id: report.paymentId,
      merchant_reference: report.merchantReference,
      order_ref: report.orderRef,
      amount_minor: report.amountMinor,
      currency: report.currency,
      occurred_at: report.occurredAtMs,
      received_at: nowMs,
      decision: decision.decision,
      reason: bounded(decision.reason),
      attempt_id: decision.attemptId,
      order_id: decision.orderId,
      resolved_at: decision.decision === 'parked' ? null : nowMs,
    })
    .execute();
}

/** Records the decision taken for a parked row once it was matched. Only a still-parked row is changed. */
export async function resolveParked(
  db: Kysely<PaymentsDatabase>,
  provider: string,
  eventId: string,
  decision: JournalDecision,
  nowMs: number,
): Promise<void> {
  await db
    .updateTable(PAYMENT_EVENTS_TABLE)
    .set({
      decision: decision.decision,
      reason: bounded(decision.reason),
      attempt_id: decision.attemptId,
      order_id: decision.orderId,
      resolved_at: nowMs,
    })
    .where('provider', '=', provider)
    .where('event_id', '=', eventId)
    .where('decision', '=', 'parked')
    .execute();
}

/** Parked rows that name `attempt` (by its provider payment id or its id as merchant reference), oldest first. */
export async function parkedFor(db: Kysely<PaymentsDatabase>, attempt: PaymentAttempt): Promise<JournalEntry[]> {
  const rows = await db
    .selectFrom(PAYMENT_EVENTS_TABLE)
    .selectAll()
    .where('decision', '=', 'parked')
    .where('provider', '=', attempt.provider)
    .where((eb) =>
      eb.or([
        eb('merchant_reference', '=', attempt.id),
        ...(attempt.providerPaymentId === null ? [] : [eb('provider_payment_id', '=', attempt.providerPaymentId)]),
      ]),
    )
    .orderBy('received_at')
    .execute();
  return rows.map(toJournalEntry);
}

/**
 * Parked rows that can be decided now, oldest first, at most `limit`: those an attempt matches (same provider and
 * provider payment id, or the attempt id as merchant reference, as `locateAttempt` finds them), except a refund
 * whose attempt is still active (it keeps waiting for its success). Rows no attempt matches are skipped by the
 * database, so any number of unmatchable parked rows never starves a matchable one (issue #7).
 */
export async function parkedMatchable(db: Kysely<PaymentsDatabase>, limit: number): Promise<JournalEntry[]> {
  const rows = await db
    .selectFrom(PAYMENT_EVENTS_TABLE)
    .selectAll()
    .where('decision', '=', 'parked')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom(ATTEMPTS_TABLE)
          .select(`${ATTEMPTS_TABLE}.id`)
          .where((a) =>
            a.or([
              a.and([
                a(`${ATTEMPTS_TABLE}.provider`, '=', a.ref(`${PAYMENT_EVENTS_TABLE}.provider`)),
                a(`${ATTEMPTS_TABLE}.provider_payment_id`, '=', a.ref(`${PAYMENT_EVENTS_TABLE}.provider_payment_id`)),
              ]),
              a(`${ATTEMPTS_TABLE}.id`, '=', a.ref(`${PAYMENT_EVENTS_TABLE}.merchant_reference`)),
            ]),
          )
          .where((a) =>
            a.or([
              a(`${PAYMENT_EVENTS_TABLE}.status`, '!=', 'refunded'),
              a(`${ATTEMPTS_TABLE}.status`, 'not in', [...ACTIVE_ATTEMPT_STATUSES]),
            ]),
          ),
      ),
    )
    .orderBy('received_at')
    .limit(limit)
    .execute();
  return rows.map(toJournalEntry);
}

/** A `PaymentReport` rebuilt from a parked journal row. */
export function reportOfEntry(entry: JournalEntry): PaymentReport {
  return Object.freeze({
    provider: entry.provider,
    eventId: entry.eventId,
    eventType: entry.eventType,
    status: entry.status as PaymentReport['status'],
    paymentId: entry.providerPaymentId,
    amountMinor: entry.amountMinor,
    currency: entry.currency,
    merchantReference: entry.merchantReference,
    orderRef: entry.orderRef,
    occurredAtMs: entry.occurredAtMs,
    actionUrl: null,
    error: null,
  });
}

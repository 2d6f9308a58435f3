import type { Kysely } from 'kysely';
import { cutToCodePoints } from '../core/code-points.js';
import { together } from '../stores/sql/transaction-connection.js';
import { ACTIVE_ATTEMPT_STATUSES } from './attempt-status.js';
import type { JournalEntry, PaymentDecision } from './journal-entry.js';
import { toJournalEntry } from './journal-entry.js';
import type { PaymentAttempt } from './payment-attempt.js';
import type { PaymentReport } from './payment-report.js';
import { type PaymentsSql, paymentsStatement, runPaymentsStatement } from './payments-sql.js';
import { ATTEMPTS_TABLE, PAYMENT_EVENTS_TABLE, type PaymentsDatabase } from './payments-tables.js';
import { recordRefundedAmount, reportedRefundOf } from './refund-amounts.js';

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
  return text === null ? null : cutToCodePoints(text, MAX_REASON_CHARS);
}

const JOURNAL_COLUMNS = {
  provider: 'provider',
  event_id: 'eventId',
  event_type: 'eventType',
  status: 'status',
  provider_payment_id: 'paymentId',
  merchant_reference: 'merchantReference',
  order_ref: 'orderRef',
  amount_minor: 'amountMinor',
  currency: 'currency',
  occurred_at: 'occurredAtMs',
  received_at: 'receivedAtMs',
  decision: 'decision',
  reason: 'reason',
  attempt_id: 'attemptId',
  order_id: 'orderId',
  resolved_at: 'resolvedAtMs',
} as const;

/** The journal row of one report (`insertJournal`). */
export const INSERT_JOURNAL = paymentsStatement(Object.values(JOURNAL_COLUMNS), (db, p) =>
  db.insertInto(PAYMENT_EVENTS_TABLE).values({
    provider: p.provider,
    event_id: p.eventId,
    event_type: p.eventType,
    status: p.status,
    provider_payment_id: p.paymentId,
    merchant_reference: p.merchantReference,
    order_ref: p.orderRef,
    amount_minor: p.amountMinor,
    currency: p.currency,
    occurred_at: p.occurredAtMs,
    received_at: p.receivedAtMs,
    decision: p.decision,
    reason: p.reason,
    attempt_id: p.attemptId,
    order_id: p.orderId,
    resolved_at: p.resolvedAtMs,
  }),
);

const RESOLVE_PARKED = paymentsStatement(
  ['provider', 'eventId', 'decision', 'reason', 'attemptId', 'orderId', 'nowMs'],
  (db, p) =>
    db
      .updateTable(PAYMENT_EVENTS_TABLE)
      .set({
        decision: p.decision,
        reason: p.reason,
        attempt_id: p.attemptId,
        order_id: p.orderId,
        resolved_at: p.nowMs,
      })
      .where('provider', '=', p.provider)
      .where('event_id', '=', p.eventId)
      .where('decision', '=', 'parked'),
);

/** Parked rows of an attempt: its id as merchant reference, or (`paymentId` not null) its provider payment id. */
function parkedQuery(db: Kysely<PaymentsDatabase>, provider: never, attemptId: never, paymentId: never | null) {
  return db
    .selectFrom(PAYMENT_EVENTS_TABLE)
    .selectAll()
    .where('decision', '=', 'parked')
    .where('provider', '=', provider)
    .where((eb) =>
      eb.or([
        eb('merchant_reference', '=', attemptId),
        ...(paymentId === null ? [] : [eb('provider_payment_id', '=', paymentId)]),
      ]),
    )
    .orderBy('received_at');
}

const JOURNAL_ROW = paymentsStatement(['provider', 'eventId'], (db, p) =>
  db.selectFrom(PAYMENT_EVENTS_TABLE).selectAll().where('provider', '=', p.provider).where('event_id', '=', p.eventId),
);

/** The journal row of the event `(provider, eventId)`, or `null` when it was never journaled. */
export async function journalRowOf(on: PaymentsSql, provider: string, eventId: string): Promise<JournalEntry | null> {
  const row = (await runPaymentsStatement(on, JOURNAL_ROW, { provider, eventId })).rows[0];
  return row ? toJournalEntry(row) : null;
}

const PARKED_FOR_ATTEMPT = paymentsStatement(['provider', 'attemptId'], (db, p) =>
  parkedQuery(db, p.provider, p.attemptId, null),
);
const PARKED_FOR_PAYMENT = paymentsStatement(['provider', 'attemptId', 'paymentId'], (db, p) =>
  parkedQuery(db, p.provider, p.attemptId, p.paymentId),
);

/**
 * Inserts the journal row of `report` with its decision (the primary key is (provider, eventId)), and the
 * refunded amount of a `refunded` report that carries one (`payonce_payment_refunds`, same key).
 */
export async function insertJournal(
  on: PaymentsSql,
  report: PaymentReport,
  decision: JournalDecision,
  nowMs: number,
): Promise<void> {
  const journal = () =>
    runPaymentsStatement(on, INSERT_JOURNAL, {
      provider: report.provider,
      eventId: report.eventId,
      eventType: report.eventType,
      status: report.status,
      paymentId: report.paymentId,
      merchantReference: report.merchantReference,
      orderRef: report.orderRef,
      amountMinor: report.amountMinor,
      currency: report.currency,
      occurredAtMs: report.occurredAtMs,
      receivedAtMs: nowMs,
      decision: decision.decision,
      reason: bounded(decision.reason),
      attemptId: decision.attemptId,
      orderId: decision.orderId,
      resolvedAtMs: decision.decision === 'parked' ? null : nowMs,
    });
  // The refund amount's row refers to the journal row: in one statement, checked at its end (`together`).
  await together(on.db, on.statements.dialect.name, [journal, () => recordRefundedAmount(on, report)]);
}

/** Records the decision taken for a parked row once it was matched. Only a still-parked row is changed. */
export async function resolveParked(
  on: PaymentsSql,
  provider: string,
  eventId: string,
  decision: JournalDecision,
  nowMs: number,
): Promise<void> {
  await runPaymentsStatement(on, RESOLVE_PARKED, {
    provider,
    eventId,
    decision: decision.decision,
    reason: bounded(decision.reason),
    attemptId: decision.attemptId,
    orderId: decision.orderId,
    nowMs,
  });
}

/** Parked rows that name `attempt` (by its provider payment id or its id as merchant reference), oldest first. */
export async function parkedFor(on: PaymentsSql, attempt: PaymentAttempt): Promise<JournalEntry[]> {
  const { provider, id: attemptId, providerPaymentId: paymentId } = attempt;
  const result =
    paymentId === null
      ? await runPaymentsStatement(on, PARKED_FOR_ATTEMPT, { provider, attemptId })
      : await runPaymentsStatement(on, PARKED_FOR_PAYMENT, { provider, attemptId, paymentId });
  return result.rows.map(toJournalEntry);
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

/** A `PaymentReport` rebuilt from a parked journal row, with the refunded amount a `refunded` event recorded. */
export async function parkedReport(on: PaymentsSql, entry: JournalEntry): Promise<PaymentReport> {
  const refundedMinor = entry.status === 'refunded' ? await reportedRefundOf(on, entry.provider, entry.eventId) : null;
  return Object.freeze({ ...reportOfEntry(entry), refundedMinor });
}

/** A `PaymentReport` rebuilt from a parked journal row (without its refunded amount: see {@link parkedReport}). */
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

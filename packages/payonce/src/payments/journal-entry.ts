import type { Selectable } from 'kysely';
import { intOf, intOrNull } from '../outbox/sql-transaction.js';
import type { PaymentsDatabase } from './payments-tables.js';

/**
 * What was decided about one provider report: `applied` (a transition was made), `unchanged` (already there,
 * or a backward move such as a late "pending" after "succeeded", ignored), `rejected` (amount, currency, order,
 * reference or provider mismatch: alerted, no state change), `parked` (no attempt matched yet: kept in the inbox).
 */
export type PaymentDecision = 'applied' | 'unchanged' | 'rejected' | 'parked';

/**
 * One journal row: every webhook event, checkout response and reconciliation answer with the decision taken,
 * so "why is this order in this state?" is one query by order id. Money in minor units; times epoch ms UTC.
 * @see docs/design.md §5 "Journal", §6.
 */
export interface JournalEntry {
  readonly provider: string;
  /** The event id (receipt key), `checkout:<attemptId>` or `reconcile:<attemptId>:<uuid>`. */
  readonly eventId: string;
  readonly eventType: string;
  /** The status reported (`not_found` when reconciliation learnt that no payment exists). */
  readonly status: string;
  readonly providerPaymentId: string | null;
  readonly merchantReference: string | null;
  /** The order id the provider echoed, if any. */
  readonly orderRef: string | null;
  readonly amountMinor: number | null;
  readonly currency: string | null;
  /** When the provider says it happened, epoch ms UTC, or `null`. */
  readonly occurredAtMs: number | null;
  readonly receivedAtMs: number;
  readonly decision: PaymentDecision;
  readonly reason: string | null;
  readonly attemptId: string | null;
  readonly orderId: string | null;
  /** When a parked event was matched, else `null`. */
  readonly resolvedAtMs: number | null;
}

/** The frozen `JournalEntry` of a selected row. */
export function toJournalEntry(row: Selectable<PaymentsDatabase['payonce_payment_events']>): JournalEntry {
  return Object.freeze({
    provider: row.provider,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    providerPaymentId: row.provider_payment_id,
    merchantReference: row.merchant_reference,
    orderRef: row.order_ref,
    amountMinor: intOrNull(row.amount_minor, 'payonce_payment_events.amount_minor'),
    currency: row.currency,
    occurredAtMs: intOrNull(row.occurred_at, 'payonce_payment_events.occurred_at'),
    receivedAtMs: intOf(row.received_at, 'payonce_payment_events.received_at'),
    decision: row.decision as PaymentDecision,
    reason: row.reason,
    attemptId: row.attempt_id,
    orderId: row.order_id,
    resolvedAtMs: intOrNull(row.resolved_at, 'payonce_payment_events.resolved_at'),
  });
}

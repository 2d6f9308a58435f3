import type { Transaction } from 'kysely';
import { InvalidOption } from '../core/errors.js';
import { RequestKey } from '../core/request-key.js';
import { isStoredId } from '../core/stored-id.js';
import { PAYONCE_ATTRIBUTES as A } from '../otel/attributes.js';
import { inSpan } from '../otel/span-scope.js';
import { transaction } from '../outbox/sql-transaction.js';
import { applyTo, drainInbox, lockEventTarget } from './apply-locked.js';
import { attemptTraceOf } from './attempt-trace.js';
import { insertJournal, journalRowOf } from './event-journal.js';
import { InvalidPaymentEvent } from './invalid-payment-event.js';
import type { PaymentDecision } from './journal-entry.js';
import { alertOf, type PaymentAlert } from './payment-alert.js';
import type { PaymentReport } from './payment-report.js';
import type { PaymentsContext } from './payments-context.js';
import { paymentsSql } from './payments-sql.js';
import { forgetPrelocked } from './prelocked-targets.js';
import { PAYMENT_EVENT_STATUSES, type ProviderPaymentEvent } from './provider-payment-event.js';

/** Options of `Payments.applyProviderEvent`. */
export interface ApplyEventOptions {
  /**
   * True when the caller's transaction already holds a receipt of this very event, claimed in that transaction and
   * committing with it: the webhook intake's one-commit mode (`transaction: true`), whose receipt (endpoint, event
   * id) commits with everything the handler writes, and whose handler runs only for a fresh delivery. No second
   * receipt (`payments:<provider>` + event id) is claimed then (two statements less), and a duplicate is answered by
   * the caller's receipt before it reaches this call. The event's journal row is its record here: one that reaches
   * it after the caller's receipt was purged (the provider sending it again days later) is answered from the journal
   * (`duplicate`, nothing applied), read with the attempt's lock when the event names a payment id (PostgreSQL,
   * MySQL), else by one read. Needs the transaction. @default false
   */
  readonly receiptHeld?: boolean;
}

/** The answer of `applyProviderEvent`: the decision; `duplicate` when this event id was already recorded. */
export interface EventResult {
  readonly decision: PaymentDecision;
  /** True when the event was recorded before: nothing ran now, `decision` is the first delivery's. */
  readonly duplicate: boolean;
  readonly reason: string | null;
  readonly attemptId: string | null;
  readonly orderId: string | null;
  /** True when this delivery made the order paid (never on a duplicate). */
  readonly becamePaid: boolean;
}

/**
 * Prefix of the provider part of the receipt `applyProviderEvent` records: `payments:<provider>` + event id. It
 * differs from the webhook intake's own receipt (`<provider>` + event id), so the intake may claim the delivery
 * with `guard.run` and call `applyProviderEvent` from its handler: the inner receipt commits with the business
 * transition, and a redelivery after a crash between the two finds it and changes nothing.
 */
export const PAYMENTS_RECEIPT_PREFIX = 'payments:';

/**
 * The report of a verified provider event.
 * @throws {InvalidPaymentEvent} no key, unknown status, nothing to match, an `orderId` that is no stored id (1–64
 *   printable ASCII characters), a `refundedMinor` that is not a non-negative safe integer.
 */
function reportOfEvent(event: ProviderPaymentEvent): PaymentReport & { readonly key: RequestKey } {
  const key = event.key;
  if (key === null) throw new InvalidPaymentEvent('no receipt key (read-only query): answer it from current state');
  if (!PAYMENT_EVENT_STATUSES.includes(event.status)) throw new InvalidPaymentEvent(`unknown status ${event.status}`);
  if (event.paymentId === null && event.merchantReference === null) {
    throw new InvalidPaymentEvent('neither a payment id nor a merchant reference: cannot be matched to an attempt');
  }
  const orderRef = event.orderId ?? null;
  if (orderRef !== null && !isStoredId(orderRef)) {
    // It could name no order payonce stores, and its journal column (`order_ref`, 200) would refuse a long one.
    throw new InvalidPaymentEvent('orderId must be 1-64 printable ASCII characters (an order id payonce stores)');
  }
  const refundedMinor = event.refundedMinor ?? null;
  if (refundedMinor !== null && !(Number.isSafeInteger(refundedMinor) && refundedMinor >= 0)) {
    throw new InvalidPaymentEvent('refundedMinor must be a non-negative integer of minor units');
  }
  return {
    key,
    provider: key.provider,
    eventId: key.externalId,
    eventType: event.eventType,
    status: event.status,
    paymentId: event.paymentId,
    amountMinor: event.amountMinor,
    currency: event.currency,
    merchantReference: event.merchantReference,
    orderRef,
    occurredAtMs: event.occurredAtMs,
    actionUrl: null,
    error: null,
    refundedMinor: event.status === 'refunded' ? refundedMinor : null,
  };
}

/**
 * See `Payments.applyProviderEvent`. With `callerTrx` the event is applied in the caller's open transaction (no
 * transaction of its own, no retry: the caller owns commit, rollback and any retry after a deadlock).
 */
export async function applyProviderEvent<DB>(
  ctx: PaymentsContext<DB>,
  event: ProviderPaymentEvent,
  callerTrx?: Transaction<DB>,
  options: ApplyEventOptions = {},
): Promise<EventResult> {
  const receiptHeld = options.receiptHeld ?? false;
  if (typeof receiptHeld !== 'boolean') throw new InvalidOption('receiptHeld', 'must be a boolean');
  if (receiptHeld && callerTrx === undefined) {
    throw new InvalidOption('receiptHeld', 'needs the transaction that holds the receipt');
  }
  const checked = reportOfEvent(event);
  const attributes = { [A.provider]: checked.key.provider, 'payonce.event.type': event.eventType };
  return await inSpan('payonce.payments.transition', { attributes }, async (span) => {
    const result =
      receiptHeld && callerTrx !== undefined
        ? await applyUnderHeldReceipt(ctx, event, checked, callerTrx)
        : await applyChecked(ctx, event, checked, callerTrx);
    span.set('payonce.payment.decision', result.decision);
    span.set(A.orderId, result.orderId);
    span.set(A.attemptId, result.attemptId);
    span.set('payonce.payment.duplicate', result.duplicate);
    // The checkout that created the attempt: this delivery's trace is another one (the provider's request).
    if (span.recording && result.attemptId !== null) span.link(await attemptTraceOf(ctx, result.attemptId, callerTrx));
    return result;
  });
}

async function applyChecked<DB>(
  ctx: PaymentsContext<DB>,
  event: ProviderPaymentEvent,
  checked: ReturnType<typeof reportOfEvent>,
  callerTrx: Transaction<DB> | undefined,
): Promise<EventResult> {
  const { key, ...report } = checked;
  const receiptKey = new RequestKey(`${PAYMENTS_RECEIPT_PREFIX}${key.provider}`, key.externalId);
  let alerts: PaymentAlert[] = [];
  let applied: (Omit<EventResult, 'duplicate'> & { readonly duplicate?: true }) | null = null;
  const apply = (trx: Transaction<DB>) => {
    alerts = [];
    applied = null;
    return ctx.guard.runInTransaction(trx, receiptKey, async (tx) => {
      // The journal row answers too: an event applied under a receipt its caller held has no `payments:` receipt.
      const result = await applyEventInTransaction(ctx, tx, event.provider, report, alerts);
      applied = result;
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result) };
    });
  };
  const outcome = callerTrx === undefined ? await transaction(ctx.store, apply) : await apply(callerTrx);
  const stored = () => JSON.parse(new TextDecoder().decode(outcome.response.body)) as Omit<EventResult, 'duplicate'>;
  if (outcome.isReplay) return Object.freeze({ ...stored(), duplicate: true, becamePaid: false });
  for (const alert of alerts) ctx.onAlert(alert);
  // Applied now: the result itself (plain strings, nulls and a boolean), not its stored JSON read back.
  const fresh = applied as (Omit<EventResult, 'duplicate'> & { readonly duplicate?: true }) | null;
  return Object.freeze({ ...(fresh ?? stored()), duplicate: fresh?.duplicate ?? false });
}

/**
 * `applyProviderEvent` in the caller's transaction, which holds this event's receipt (`receiptHeld`). The event's
 * journal row is its record here: an event journaled before (its caller's receipt purged since, and the provider
 * sending it again) is answered as a duplicate with the journal's decision, and nothing runs.
 */
async function applyUnderHeldReceipt<DB>(
  ctx: PaymentsContext<DB>,
  event: ProviderPaymentEvent,
  checked: ReturnType<typeof reportOfEvent>,
  trx: Transaction<DB>,
): Promise<EventResult> {
  const { key: _key, ...report } = checked;
  const alerts: PaymentAlert[] = [];
  const applied = await applyEventInTransaction(ctx, trx, event.provider, report, alerts);
  for (const alert of alerts) ctx.onAlert(alert);
  return Object.freeze({ ...applied, duplicate: applied.duplicate ?? false });
}

/**
 * Event body of `applyProviderEvent`, inside the receipt's transaction. An event journaled already is a duplicate:
 * its journal row answers (`duplicate: true`) and nothing is applied. Under `receiptHeld` the journal row is the
 * event's only record here; without it the `payments:` receipt answers first, and the journal row still answers an
 * event applied earlier under a receipt its caller held (a mode switched meanwhile), instead of a duplicate-key error.
 */
async function applyEventInTransaction<DB>(
  ctx: PaymentsContext<DB>,
  trx: Transaction<DB>,
  provider: string,
  report: PaymentReport,
  alerts: PaymentAlert[],
): Promise<Omit<EventResult, 'duplicate'> & { readonly duplicate?: true }> {
  const on = paymentsSql(ctx, trx);
  const now = ctx.clock.now();
  const target = await lockEventTarget(on, provider, report.paymentId, report.merchantReference, report);
  // Read with the attempt's lock when it was located by payment id; else (or when it says so) the row itself.
  const before = target?.journaled !== false ? await journalRowOf(on, report.provider, report.eventId) : null;
  if (before !== null) {
    const { decision, reason, attemptId, orderId } = before;
    return { decision, reason, attemptId, orderId, becamePaid: false, duplicate: true };
  }
  if (!target) {
    forgetPrelocked(on); // its journal row is written without a lock: nothing read ahead may stand for its key
    const decision = { decision: 'parked', reason: 'no attempt matches yet', attemptId: null, orderId: null } as const;
    await insertJournal(on, report, decision, now);
    return { ...decision, becamePaid: false };
  }
  // The journal row goes with the transition's writes: one statement on PostgreSQL.
  const applied = await applyTo(ctx, trx, target, report, now, (decided) => insertJournal(on, report, decided, now));
  if (applied.alert) alerts.push(alertOf(report, applied));
  // The inbox was read with the lock: nothing parked for this attempt, and no payment id learnt since → no drain.
  const nothingParked =
    target.parked === false && applied.attempt.providerPaymentId === target.attempt.providerPaymentId;
  if (applied.decision === 'applied' && !nothingParked) await drainInbox(ctx, trx, applied, now, alerts);
  const { decision, reason, attemptId, orderId, becamePaid } = applied;
  return { decision, reason, attemptId, orderId, becamePaid };
}

import { transaction } from '../outbox/sql-transaction.js';
import { applyLocked, drainInbox, type LockedTarget } from './apply-locked.js';
import { insertJournal } from './event-journal.js';
import { alertOf, type PaymentAlert } from './payment-alert.js';
import type { PaymentAttempt } from './payment-attempt.js';
import type { CreatePaymentRequest, ProviderPayment } from './payment-provider.js';
import type { PaymentReport } from './payment-report.js';
import type { PaymentsContext } from './payments-context.js';
import { paymentsSql } from './payments-sql.js';

/**
 * What the provider is asked to create for `attempt`: its stored idempotency key, the attempt id as merchant
 * reference and its money. The checkout and every reconciliation re-send build it here, so a retry always sends
 * the same key with the same parameters (a provider refuses a key reused with other parameters).
 */
export function createRequestOf(attempt: PaymentAttempt): CreatePaymentRequest {
  return {
    idempotencyKey: attempt.idempotencyKey,
    merchantReference: attempt.id,
    orderId: attempt.orderId,
    amountMinor: attempt.amountMinor,
    currency: attempt.currency,
  };
}

/** The report fields of a provider's payment. */
export function fieldsOf(payment: ProviderPayment) {
  return {
    status: payment.status,
    paymentId: payment.paymentId,
    amountMinor: payment.amountMinor,
    currency: payment.currency,
    merchantReference: payment.merchantReference,
    actionUrl: payment.actionUrl,
  };
}

/** The report fields when the provider gave no payment (an error): only the merchant reference is known. */
export function emptyFields(attempt: PaymentAttempt) {
  return { paymentId: null, amountMinor: null, currency: null, merchantReference: attempt.id, actionUrl: null };
}

/** `Name: message` of a thrown value, for the journal. */
export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Records a provider answer (checkout response or reconciliation) in one transaction: applies it forward-only,
 * journals it, drains the inbox of the attempt; alerts after commit. Returns the attempt and its order as that
 * transaction committed them.
 */
export async function recordProviderAnswer<DB>(
  ctx: PaymentsContext<DB>,
  attempt: PaymentAttempt,
  report: PaymentReport,
): Promise<LockedTarget> {
  let alerts: PaymentAlert[] = [];
  const updated = await transaction(ctx.store, async (trx) => {
    alerts = [];
    const on = paymentsSql(ctx, trx);
    const now = ctx.clock.now();
    // The journal row goes with the answer's writes: one statement on PostgreSQL.
    const applied = await applyLocked(ctx, trx, attempt, report, now, (decided) =>
      insertJournal(on, report, decided, now),
    );
    if (applied.alert) alerts.push(alertOf(report, applied));
    return await drainInbox(ctx, trx, applied, now, alerts);
  });
  for (const alert of alerts) ctx.onAlert(alert);
  return updated;
}

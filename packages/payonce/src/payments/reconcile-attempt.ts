import { randomUUID } from 'node:crypto';
import { RequestKey } from '../core/request-key.js';
import type { PaymentAttempt } from './payment-attempt.js';
import type { ProviderPayment } from './payment-provider.js';
import type { PaymentReport } from './payment-report.js';
import type { PaymentsContext } from './payments-context.js';
import { createRequestOf, emptyFields, errorText, fieldsOf, recordProviderAnswer } from './provider-answer.js';
import { ProviderDeclined } from './provider-declined.js';
import { applyProviderEvent, type EventResult } from './provider-events.js';

/**
 * How a reconciliation records what the provider says about an attempt:
 * - `create-answer` (the reconciliation job, for attempts in `creating`/`unknown`): the payment found is recorded
 *   as the answer to the attempt's create (journal event type `reconciliation`, event id
 *   `reconcile:<attemptId>:<uuid>`); a provider that knows no payment gets the create re-sent with the attempt's
 *   same idempotency key and parameters (`reconciliation.resend`; `failed` only on `ProviderDeclined`).
 * - `event` (attempts past their create, or one attempt an operator names): a payment in another status than
 *   the attempt's is applied as a provider event (`eventType: 'reconciliation'`, receipt
 *   `<receiptPrefix>:<attemptId>:<uuid>`) through `applyProviderEvent` — same checks, forward-only, journaled,
 *   fulfilment once; a provider that knows no payment, or reports the same status, changes nothing.
 */
export type ReconcileMode = { readonly as: 'create-answer' } | { readonly as: 'event'; readonly receiptPrefix: string };

/**
 * What reconciling one attempt did. `attempt` is the attempt as it was asked about; `error` is what the
 * provider client threw.
 * - `lookup-failed`: `getPaymentByReference` threw; nothing written.
 * - `not-found` (`event` mode): the provider knows no payment by this reference; nothing written.
 * - `unchanged` (`event` mode): the provider reports the attempt's own status; nothing written.
 * - `event-applied` (`event` mode): the provider's status was applied; `result` is `applyProviderEvent`'s.
 * - `resend-failed` (`create-answer` mode): the re-sent create threw something other than `ProviderDeclined`;
 *   nothing written (asked again next run).
 * - `recorded` (`create-answer` mode): the answer was recorded; `resent` when it came from a re-sent create;
 *   `updated` is the attempt as stored now.
 */
export type AttemptReconciliation =
  | { readonly outcome: 'lookup-failed'; readonly attempt: PaymentAttempt; readonly error: unknown }
  | { readonly outcome: 'not-found'; readonly attempt: PaymentAttempt }
  | { readonly outcome: 'unchanged'; readonly attempt: PaymentAttempt; readonly payment: ProviderPayment }
  | {
      readonly outcome: 'event-applied';
      readonly attempt: PaymentAttempt;
      readonly payment: ProviderPayment;
      readonly result: EventResult;
    }
  | { readonly outcome: 'resend-failed'; readonly attempt: PaymentAttempt; readonly error: unknown }
  | {
      readonly outcome: 'recorded';
      readonly attempt: PaymentAttempt;
      readonly resent: boolean;
      readonly updated: PaymentAttempt;
    };

/**
 * Asks the provider about one attempt by merchant reference (`getPaymentByReference(attempt.id)`) and records
 * the answer as `mode` says. See `Payments.reconcileAttempt`.
 * @throws the database's error (a provider error is an outcome, not thrown).
 */
export async function reconcileAttempt<DB>(
  ctx: PaymentsContext<DB>,
  attempt: PaymentAttempt,
  mode: ReconcileMode,
): Promise<AttemptReconciliation> {
  let payment: ProviderPayment | null;
  try {
    payment = await ctx.provider.getPaymentByReference(attempt.id);
  } catch (error) {
    return { outcome: 'lookup-failed', attempt, error };
  }
  if (mode.as === 'event') return applyFound(ctx, attempt, payment, mode.receiptPrefix);
  return recordFound(ctx, attempt, payment);
}

/** `event` mode: applies a payment in another status as a provider event. */
async function applyFound<DB>(
  ctx: PaymentsContext<DB>,
  attempt: PaymentAttempt,
  payment: ProviderPayment | null,
  receiptPrefix: string,
): Promise<AttemptReconciliation> {
  if (payment === null) return { outcome: 'not-found', attempt };
  if (payment.status === attempt.status) return { outcome: 'unchanged', attempt, payment };
  const result = await applyProviderEvent(ctx, {
    provider: attempt.provider,
    key: new RequestKey(attempt.provider, `${receiptPrefix}:${attempt.id}:${randomUUID()}`),
    eventType: 'reconciliation',
    status: payment.status,
    paymentId: payment.paymentId,
    amountMinor: payment.amountMinor,
    currency: payment.currency,
    merchantReference: payment.merchantReference,
    occurredAtMs: null,
    orderId: attempt.orderId,
  });
  return { outcome: 'event-applied', attempt, payment, result };
}

/** `create-answer` mode: records the payment found, or the answer of a re-sent create. */
async function recordFound<DB>(
  ctx: PaymentsContext<DB>,
  attempt: PaymentAttempt,
  payment: ProviderPayment | null,
): Promise<AttemptReconciliation> {
  const base = {
    provider: attempt.provider,
    eventId: `reconcile:${attempt.id}:${randomUUID()}`,
    eventType: 'reconciliation',
    orderRef: null,
    occurredAtMs: null,
    error: null,
  };
  let report: PaymentReport;
  if (payment !== null) {
    report = { ...base, ...fieldsOf(payment) };
  } else {
    const answer = await resendCreate(ctx, attempt);
    if (!answer.ok) return { outcome: 'resend-failed', attempt, error: answer.error };
    report = { ...base, eventType: 'reconciliation.resend', ...answer.fields };
  }
  const { attempt: updated } = await recordProviderAnswer(ctx, attempt, report);
  return { outcome: 'recorded', attempt, resent: payment === null, updated };
}

/**
 * Re-sends the create of an unresolved attempt with its stored idempotency key and the same parameters: the
 * provider's payment fields, `failed` with the refusal on `ProviderDeclined`, or the error when the answer is
 * still unknown (any other error).
 */
async function resendCreate<DB>(ctx: PaymentsContext<DB>, attempt: PaymentAttempt) {
  try {
    const payment = await ctx.provider.createPayment(createRequestOf(attempt));
    return { ok: true as const, fields: { ...fieldsOf(payment), error: null } };
  } catch (error) {
    if (!(error instanceof ProviderDeclined)) return { ok: false as const, error };
    const fields = { ...emptyFields(attempt), status: 'failed' as const, error: errorText(error) };
    return { ok: true as const, fields };
  }
}

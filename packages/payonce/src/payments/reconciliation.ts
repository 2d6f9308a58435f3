import { randomUUID } from 'node:crypto';
import { nonNegativeInt, positiveInt } from '../core/options.js';
import { transaction } from '../outbox/sql-transaction.js';
import { applyLocked, drainInbox } from './apply-locked.js';
import { locateAttempt } from './attempt-rows.js';
import type { AttemptStatus } from './attempt-status.js';
import { parkedMatchable, parkedReport, resolveParked } from './event-journal.js';
import type { JournalEntry } from './journal-entry.js';
import { lockOrder } from './order-rows.js';
import { alertOf, type PaymentAlert } from './payment-alert.js';
import { type PaymentAttempt, toAttempt } from './payment-attempt.js';
import type { ProviderPayment } from './payment-provider.js';
import type { PaymentReport } from './payment-report.js';
import { type PaymentsContext, paymentsDb } from './payments-context.js';
import { paymentsSql } from './payments-sql.js';
import { ATTEMPTS_TABLE, PAYMENT_EVENTS_TABLE } from './payments-tables.js';
import { createRequestOf, emptyFields, errorText, fieldsOf, recordProviderAnswer } from './provider-answer.js';
import { ProviderDeclined } from './provider-declined.js';

/** Options of `reconcile`. */
export interface ReconcileOptions {
  /** Only attempts in `creating`/`unknown` not updated for this long are asked about. @default 60_000 */
  olderThanMs?: number;
  /** At most this many attempts and this many parked events per run. @default 100 */
  limit?: number;
}

/** What one `reconcile` run did. */
export interface ReconcileReport {
  /** Attempts asked about. */
  readonly examined: number;
  /** Of those, how many left `creating`/`unknown`. */
  readonly resolved: number;
  /** Attempts whose look-up threw (left as they were). */
  readonly lookupErrors: number;
  /**
   * Attempts the provider did not know by merchant reference, whose create was re-sent with the attempt's same
   * idempotency key (see `reconcile`).
   */
  readonly resent: number;
  /** Of those, how many re-sends threw something other than `ProviderDeclined` (left as they were, retried next run). */
  readonly resendErrors: number;
  /** Parked inbox events matched to an attempt and decided. */
  readonly parkedMatched: number;
}

const UNRESOLVED: readonly AttemptStatus[] = ['creating', 'unknown'];

/** What one attempt's reconciliation did. */
type AttemptOutcome = 'lookup-error' | 'resend-error' | 'resolved' | 'resent-resolved' | 'resent' | 'unresolved';

/** See `Payments.reconcile`. */
export async function reconcile<DB>(
  ctx: PaymentsContext<DB>,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const olderThanMs = nonNegativeInt('olderThanMs', options.olderThanMs ?? 60_000);
  const limit = positiveInt('limit', options.limit ?? 100);
  const stale = await staleAttempts(ctx, olderThanMs, limit);
  const count = { resolved: 0, lookupErrors: 0, resent: 0, resendErrors: 0 };
  for (const attempt of stale) {
    const outcome = await reconcileAttempt(ctx, attempt);
    if (outcome === 'lookup-error') count.lookupErrors++;
    if (outcome === 'resend-error' || outcome === 'resent' || outcome === 'resent-resolved') count.resent++;
    if (outcome === 'resend-error') count.resendErrors++;
    if (outcome === 'resolved' || outcome === 'resent-resolved') count.resolved++;
  }
  const parkedMatched = await matchParked(ctx, limit);
  return Object.freeze({ examined: stale.length, ...count, parkedMatched });
}

/** This provider's attempts in `creating`/`unknown` not updated for `olderThanMs`, oldest first. */
async function staleAttempts<DB>(
  ctx: PaymentsContext<DB>,
  olderThanMs: number,
  limit: number,
): Promise<PaymentAttempt[]> {
  const rows = await paymentsDb(ctx)
    .selectFrom(ATTEMPTS_TABLE)
    .selectAll()
    .where('provider', '=', ctx.provider.name)
    .where('status', 'in', [...UNRESOLVED])
    .where('updated_at', '<=', ctx.clock.now() - olderThanMs)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  return rows.map(toAttempt);
}

/** Looks one attempt up by merchant reference (re-sending its create when unknown) and records the answer. */
async function reconcileAttempt<DB>(ctx: PaymentsContext<DB>, attempt: PaymentAttempt): Promise<AttemptOutcome> {
  let payment: ProviderPayment | null;
  try {
    payment = await ctx.provider.getPaymentByReference(attempt.id);
  } catch {
    return 'lookup-error';
  }
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
    if (answer === null) return 'resend-error';
    report = { ...base, eventType: 'reconciliation.resend', ...answer };
  }
  const updated = await recordProviderAnswer(ctx, attempt, report);
  const resolved = !UNRESOLVED.includes(updated.status);
  if (payment === null) return resolved ? 'resent-resolved' : 'resent';
  return resolved ? 'resolved' : 'unresolved';
}

/**
 * Re-sends the create of an unresolved attempt with its stored idempotency key and the same parameters: the
 * provider's payment fields, `failed` with the refusal on `ProviderDeclined`, or `null` when the answer is
 * still unknown (any other error).
 */
async function resendCreate<DB>(ctx: PaymentsContext<DB>, attempt: PaymentAttempt) {
  try {
    const payment = await ctx.provider.createPayment(createRequestOf(attempt));
    return { ...fieldsOf(payment), error: null };
  } catch (error) {
    if (!(error instanceof ProviderDeclined)) return null;
    return { ...emptyFields(attempt), status: 'failed' as const, error: errorText(error) };
  }
}

/**
 * Matches parked events whose attempt can now be found (selected by the database, see `parkedMatchable`, so
 * unmatchable rows never take the `limit`); returns how many were decided.
 */
async function matchParked<DB>(ctx: PaymentsContext<DB>, limit: number): Promise<number> {
  let matched = 0;
  for (const entry of await parkedMatchable(paymentsDb(ctx), limit)) {
    const attempt = await locateAttempt(
      paymentsSql(ctx),
      entry.provider,
      entry.providerPaymentId,
      entry.merchantReference,
    );
    if (attempt && (await decideParked(ctx, entry, attempt))) matched++;
  }
  return matched;
}

/** Applies one parked event to `attempt` in one transaction, unless another run decided it first. */
async function decideParked<DB>(ctx: PaymentsContext<DB>, entry: JournalEntry, attempt: PaymentAttempt) {
  let alerts: PaymentAlert[] = [];
  const decided = await transaction(ctx.store, async (trx) => {
    alerts = [];
    const on = paymentsSql(ctx, trx);
    await lockOrder(on, attempt.orderId);
    const still = await on.db
      .selectFrom(PAYMENT_EVENTS_TABLE)
      .select('decision')
      .where('provider', '=', entry.provider)
      .where('event_id', '=', entry.eventId)
      .executeTakeFirst();
    if (still?.decision !== 'parked') return false;
    const now = ctx.clock.now();
    const report = await parkedReport(on, entry);
    const applied = await applyLocked(ctx, trx, attempt, report, now);
    if (applied.decision === 'parked') return false;
    await resolveParked(on, entry.provider, entry.eventId, applied, now);
    if (applied.alert) alerts.push(alertOf(report, applied));
    if (applied.decision === 'applied') await drainInbox(ctx, trx, attempt.id, now, alerts);
    return true;
  });
  for (const alert of alerts) ctx.onAlert(alert);
  return decided;
}

import { InvalidOption } from '../core/errors.js';
import { nonNegativeInt, positiveInt } from '../core/options.js';
import { PAYONCE_ATTRIBUTES as A } from '../otel/attributes.js';
import { inSpan } from '../otel/span-scope.js';
import { transaction } from '../outbox/sql-transaction.js';
import { applyLocked, drainInbox } from './apply-locked.js';
import { locateAttempt } from './attempt-rows.js';
import { ATTEMPT_STATUSES, type AttemptStatus } from './attempt-status.js';
import { parkedMatchable, parkedReport, resolveParked } from './event-journal.js';
import type { JournalEntry } from './journal-entry.js';
import { lockOrder } from './order-rows.js';
import { alertOf, type PaymentAlert } from './payment-alert.js';
import { type PaymentAttempt, toAttempt } from './payment-attempt.js';
import { type PaymentsContext, paymentsDb } from './payments-context.js';
import { paymentsSql } from './payments-sql.js';
import { ATTEMPTS_TABLE, PAYMENT_EVENTS_TABLE } from './payments-tables.js';
import { type AttemptReconciliation, type ReconcileMode, reconcileAttempt } from './reconcile-attempt.js';

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

/** Options of `reconcileAttempts`. Durations in milliseconds. */
export interface ReconcileAttemptsOptions {
  /** Attempts of this provider in these statuses are asked about. Non-empty. */
  readonly statuses: readonly AttemptStatus[];
  /** Only attempts not updated for this long (`updated_at <= nowMs - olderThanMs`). */
  readonly olderThanMs: number;
  /** At most this many attempts are asked about. @default 100 */
  readonly limit?: number;
  /** How each answer is recorded (see `ReconcileMode`). */
  readonly mode: ReconcileMode;
  /** Attempt ids passed over (asked about recently): they neither are asked nor count toward `limit`. */
  readonly skip?: ReadonlySet<string>;
  /** The time the age is measured from, epoch ms. @default the clock of `Payments` */
  readonly nowMs?: number;
  /** Called just before each attempt is asked about (e.g. to remember it was asked). */
  readonly onAsk?: (attempt: PaymentAttempt) => void;
}

/**
 * See `Payments.reconcileAttempts`: the selected attempts, oldest `updated_at` first, asked one after another.
 * @throws {InvalidOption} no statuses, an unknown status, `olderThanMs` not a non-negative integer, `limit` not a
 *   positive integer.
 */
export async function reconcileAttempts<DB>(
  ctx: PaymentsContext<DB>,
  options: ReconcileAttemptsOptions,
): Promise<AttemptReconciliation[]> {
  const statuses = attemptStatuses(options.statuses);
  const olderThanMs = nonNegativeInt('olderThanMs', options.olderThanMs);
  const limit = positiveInt('limit', options.limit ?? 100);
  const skip = options.skip ?? new Set<string>();
  const nowMs = options.nowMs ?? ctx.clock.now();
  const rows = await paymentsDb(ctx)
    .selectFrom(ATTEMPTS_TABLE)
    .selectAll()
    .where('provider', '=', ctx.provider.name)
    .where('status', 'in', [...statuses])
    .where('updated_at', '<=', nowMs - olderThanMs)
    .orderBy('updated_at')
    .limit(limit + skip.size)
    .execute();
  const outcomes: AttemptReconciliation[] = [];
  for (const row of rows) {
    if (outcomes.length >= limit) break;
    if (skip.has(row.id)) continue;
    const attempt = toAttempt(row);
    options.onAsk?.(attempt);
    outcomes.push(await reconcileAttempt(ctx, attempt, options.mode));
  }
  return outcomes;
}

/** `statuses` checked: a non-empty list of attempt statuses. */
function attemptStatuses(statuses: unknown): readonly AttemptStatus[] {
  if (!Array.isArray(statuses) || statuses.length === 0) {
    throw new InvalidOption('statuses', 'at least one attempt status is required');
  }
  for (const status of statuses) {
    if (!ATTEMPT_STATUSES.includes(status)) throw new InvalidOption('statuses', `unknown attempt status ${status}`);
  }
  return statuses;
}

/** See `Payments.reconcile`. */
export async function reconcile<DB>(
  ctx: PaymentsContext<DB>,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const olderThanMs = nonNegativeInt('olderThanMs', options.olderThanMs ?? 60_000);
  const limit = positiveInt('limit', options.limit ?? 100);
  return await inSpan(
    'payonce.payments.reconcile',
    { attributes: { [A.provider]: ctx.provider.name } },
    async (span) => {
      const report = await reconcileRound(ctx, olderThanMs, limit);
      span.set('payonce.reconcile.examined', report.examined);
      span.set('payonce.reconcile.resolved', report.resolved);
      return report;
    },
  );
}

async function reconcileRound<DB>(
  ctx: PaymentsContext<DB>,
  olderThanMs: number,
  limit: number,
): Promise<ReconcileReport> {
  const mode = { as: 'create-answer' } as const;
  const outcomes = await reconcileAttempts(ctx, { statuses: UNRESOLVED, olderThanMs, limit, mode });
  const count = { resolved: 0, lookupErrors: 0, resent: 0, resendErrors: 0 };
  for (const done of outcomes) {
    if (done.outcome === 'lookup-failed') count.lookupErrors++;
    if (done.outcome === 'resend-failed') count.resendErrors++;
    if (done.outcome === 'resend-failed' || (done.outcome === 'recorded' && done.resent)) count.resent++;
    if (done.outcome === 'recorded' && !UNRESOLVED.includes(done.updated.status)) count.resolved++;
  }
  const parkedMatched = await matchParked(ctx, limit);
  return Object.freeze({ examined: outcomes.length, ...count, parkedMatched });
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
    const still = await (on.tables ?? on.db)
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
    if (applied.decision === 'applied') await drainInbox(ctx, trx, applied, now, alerts);
    return true;
  });
  for (const alert of alerts) ctx.onAlert(alert);
  return decided;
}

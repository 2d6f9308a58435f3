import type { Transaction } from 'kysely';
import { type AppliedReport, applyReport } from './apply-report.js';
import { lockAttempt } from './attempt-rows.js';
import { parkedFor, parkedReport, resolveParked } from './event-journal.js';
import { lockOrder } from './order-rows.js';
import { alertOf, type PaymentAlert } from './payment-alert.js';
import type { PaymentAttempt } from './payment-attempt.js';
import type { PaymentReport } from './payment-report.js';
import type { PaymentsContext } from './payments-context.js';
import { paymentsSql } from './payments-sql.js';

/** Locks the attempt's order, then the attempt, and applies `report` inside `trx`. */
export async function applyLocked<DB>(
  ctx: PaymentsContext<DB>,
  trx: Transaction<DB>,
  attempt: PaymentAttempt,
  report: PaymentReport,
  nowMs: number,
): Promise<AppliedReport> {
  const on = paymentsSql(ctx, trx);
  const order = await lockOrder(on, attempt.orderId);
  const locked = await lockAttempt(on, attempt.id);
  if (!order || !locked) throw new Error(`attempt ${attempt.id} or its order vanished`);
  return applyReport({ trx, on, outbox: ctx.outbox, nowMs }, order, locked, report);
}

/**
 * Applies the parked events that name `attempt` (by payment id or merchant reference), oldest first, and again
 * while a pass decided any: a refund parked because it overtook its success stays parked in a pass that comes
 * before the success, and is applied by the next one. `attempt` is the attempt as this transaction holds it,
 * locked (`AppliedReport.attempt`): it is not read again. Returns the attempt as the drain left it.
 */
export async function drainInbox<DB>(
  ctx: PaymentsContext<DB>,
  trx: Transaction<DB>,
  attempt: PaymentAttempt,
  nowMs: number,
  alerts: PaymentAlert[],
): Promise<PaymentAttempt> {
  const on = paymentsSql(ctx, trx);
  let current = attempt;
  let decided = true;
  while (decided) {
    decided = false;
    for (const entry of await parkedFor(on, current)) {
      const report = await parkedReport(on, entry);
      const applied = await applyLocked(ctx, trx, current, report, nowMs);
      current = applied.attempt;
      if (applied.decision === 'parked') continue;
      await resolveParked(on, entry.provider, entry.eventId, applied, nowMs);
      if (applied.alert) alerts.push(alertOf(report, applied));
      decided = true;
    }
  }
  return current;
}

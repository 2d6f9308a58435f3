import type { Transaction } from 'kysely';
import { type AppliedReport, applyReport } from './apply-report.js';
import { type JournalKey, locateAttempt, lockAttempt, lockAttemptOfPayment } from './attempt-rows.js';
import { parkedFor, parkedReport, resolveParked } from './event-journal.js';
import type { LockedTarget } from './locked-target.js';
import { lockOrder, lockOrderOfPayment } from './order-rows.js';
import { alertOf, type PaymentAlert } from './payment-alert.js';
import type { PaymentAttempt } from './payment-attempt.js';
import type { PaymentReport } from './payment-report.js';
import type { PaymentsContext } from './payments-context.js';
import { type PaymentsSql, paymentsSql } from './payments-sql.js';
import { takePrelocked } from './prelocked-targets.js';

export type { LockedTarget } from './locked-target.js';

/**
 * Locks the attempt's order, then the attempt, and applies `report` inside `trx`; `alongside` as for
 * {@link applyTo}.
 */
export async function applyLocked<DB>(
  ctx: PaymentsContext<DB>,
  trx: Transaction<DB>,
  attempt: PaymentAttempt,
  report: PaymentReport,
  nowMs: number,
  alongside?: (decided: AppliedReport) => Promise<unknown>,
): Promise<AppliedReport> {
  return applyTo(ctx, trx, await lockTarget(paymentsSql(ctx, trx), attempt), report, nowMs, alongside);
}

/**
 * Applies `report` to an attempt and order the caller locked in `trx` (see `applyReport`); `alongside`, the caller's
 * own write of the decision (its journal row), is made with the report's writes (`ApplyContext.alongside`).
 */
export function applyTo<DB>(
  ctx: PaymentsContext<DB>,
  trx: Transaction<DB>,
  target: LockedTarget,
  report: PaymentReport,
  nowMs: number,
  alongside?: (decided: AppliedReport) => Promise<unknown>,
): Promise<AppliedReport> {
  return applyReport(
    { trx, on: paymentsSql(ctx, trx), outbox: ctx.outbox, nowMs, ...(alongside === undefined ? {} : { alongside }) },
    target.order,
    target.attempt,
    report,
  );
}

async function lockTarget(on: PaymentsSql, attempt: PaymentAttempt): Promise<LockedTarget> {
  const order = await lockOrder(on, attempt.orderId);
  const locked = await lockAttempt(on, attempt.id);
  if (!order || !locked) throw new Error(`attempt ${attempt.id} or its order vanished`);
  return { order, attempt: locked };
}

/**
 * Finds the attempt a provider event is about — by (provider, provider payment id) first, else by the merchant
 * reference (the attempt id), as `locateAttempt` — and locks its order, then it. On PostgreSQL and MySQL an event
 * with a payment id that matches locks the order in the statement that finds it (two statements, not three), and
 * the attempt's lock also reads whether anything is parked for it and whether the event (its journal key `event`)
 * is journaled already. A target locked ahead for its batch (`prelockTargets`) is taken from there, no statement
 * sent. `null` when no attempt matches yet (the event goes to the inbox).
 */
export async function lockEventTarget(
  on: PaymentsSql,
  provider: string,
  paymentId: string | null,
  merchantReference: string | null,
  event: JournalKey,
): Promise<LockedTarget | null> {
  const byPayment = paymentId !== null && on.statements.dialect.name !== 'sqlite';
  if (byPayment) {
    // Locked and read ahead with the rest of its group-commit batch (`prelockTargets`), when it was.
    const ahead = takePrelocked(on, { provider, paymentId, eventProvider: event.provider, eventId: event.eventId });
    if (ahead !== null) return ahead;
    const order = await lockOrderOfPayment(on, provider, paymentId);
    if (order) {
      const locked = await lockAttemptOfPayment(on, provider, paymentId, event);
      if (!locked) throw new Error(`the attempt of payment ${paymentId} vanished`);
      return { order, attempt: locked.attempt, parked: locked.parked, journaled: locked.journaled };
    }
  }
  // No attempt carries the payment id (already looked up, on PostgreSQL/MySQL): by the merchant reference.
  const found = await locateAttempt(on, provider, byPayment ? null : paymentId, merchantReference);
  return found === null ? null : await lockTarget(on, found);
}

/**
 * Applies the parked events that name `held.attempt` (by payment id or merchant reference), oldest first, and again
 * while a pass decided any: a refund parked because it overtook its success stays parked in a pass that comes
 * before the success, and is applied by the next one. `held` is the attempt and its order as this transaction holds
 * them, locked (`AppliedReport.attempt`, `.order`): they are not read again. Returns them as the drain left them.
 */
export async function drainInbox<DB>(
  ctx: PaymentsContext<DB>,
  trx: Transaction<DB>,
  held: LockedTarget,
  nowMs: number,
  alerts: PaymentAlert[],
): Promise<LockedTarget> {
  const on = paymentsSql(ctx, trx);
  let current: LockedTarget = { attempt: held.attempt, order: held.order };
  let decided = true;
  while (decided) {
    decided = false;
    for (const entry of await parkedFor(on, current.attempt)) {
      const report = await parkedReport(on, entry);
      const applied = await applyLocked(ctx, trx, current.attempt, report, nowMs);
      current = { attempt: applied.attempt, order: applied.order };
      if (applied.decision === 'parked') continue;
      await resolveParked(on, entry.provider, entry.eventId, applied, nowMs);
      if (applied.alert) alerts.push(alertOf(report, applied));
      decided = true;
    }
  }
  return current;
}

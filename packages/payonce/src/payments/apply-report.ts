import type { Transaction } from 'kysely';
import { activeTracer } from '../otel/tracing.js';
import type { Outbox } from '../outbox/outbox.js';
import { together } from '../stores/sql/transaction-connection.js';
import { type AttemptChange, attemptAsWritten, findActiveAttempt, updateAttempt } from './attempt-rows.js';
import { type AttemptStatus, isActiveAttempt, nextAttemptStatus } from './attempt-status.js';
import type { JournalDecision } from './event-journal.js';
import type { Order } from './order.js';
import { moveOrderStatus, orderAsWritten } from './order-rows.js';
import { nextOrderStatus, type OrderStatus } from './order-status.js';
import type { PaymentAttempt } from './payment-attempt.js';
import type { PaymentReport } from './payment-report.js';
import { type PaymentsSql, paymentsStatement, runPaymentsStatement } from './payments-sql.js';
import { ATTEMPTS_TABLE } from './payments-tables.js';
import { refundedOfAttempt } from './refund-amounts.js';

/** Outbox topic of the fulfilment job enqueued once when an order becomes paid; dedupe key `order:<orderId>`. */
export const FULFIL_TOPIC = 'order.fulfil';
/** Outbox topic of the job enqueued once when a paid order is refunded; dedupe key `order:<orderId>`. */
export const REFUND_TOPIC = 'order.refunded';

/** What applying one report did, beyond the journal decision. */
export interface AppliedReport extends JournalDecision {
  /** True when this report made the order `paid` (and enqueued its fulfilment). */
  readonly becamePaid: boolean;
  /** True when a human should look: a mismatch, or money reported on an order that can no longer take it. */
  readonly alert: boolean;
  /**
   * The attempt as this transaction now holds it (still locked): the row `applyReport` was given with its change
   * written, the same values a read of the row would return. Later steps of the transaction use it instead of
   * reading the row again.
   */
  readonly attempt: PaymentAttempt;
  /** The order as this transaction now holds it (still locked), its move (paid, refunded) written. */
  readonly order: Order;
}

/** A write a branch of {@link applyReport} decided, made at its end together with the others. */
type Write = () => Promise<unknown>;

/**
 * What {@link applyReport}'s branches decide, with the order as it will be written when they move it and the writes
 * that move it; the attempt's change is added once, at its end.
 */
type Decided = Omit<AppliedReport, 'attempt' | 'order'> & { readonly order?: Order; readonly writes?: Write[] };

/** Everything `applyReport` writes through, inside the caller's transaction. */
export interface ApplyContext<DB> {
  readonly trx: Transaction<DB>;
  /** `trx` with the store's compiled statements. */
  readonly on: PaymentsSql;
  readonly outbox: Outbox<DB>;
  readonly nowMs: number;
  /**
   * A write of the caller's to make with the report's own (its journal row): given the report's decision, it is
   * started with them, so on PostgreSQL they all go in one statement (`together`). It must not touch the order or
   * the attempt.
   */
  readonly alongside?: (decided: AppliedReport) => Promise<unknown>;
}

const MUST_CARRY_MONEY: ReadonlySet<PaymentReport['status']> = new Set(['succeeded', 'refunded']);

/** Why `report` cannot be about `attempt`, or `null` when every field it carries matches. */
export function mismatchOf(attempt: PaymentAttempt, report: PaymentReport): string | null {
  if (report.provider !== attempt.provider) return `provider ${report.provider} is not ${attempt.provider}`;
  if (
    report.paymentId !== null &&
    attempt.providerPaymentId !== null &&
    report.paymentId !== attempt.providerPaymentId
  ) {
    return 'payment id differs from the attempt’s';
  }
  if (report.merchantReference !== null && report.merchantReference !== attempt.id) {
    return 'merchant reference names another attempt';
  }
  if (report.orderRef !== null && report.orderRef !== attempt.orderId) return 'order differs from the attempt’s order';
  if (MUST_CARRY_MONEY.has(report.status) && (report.amountMinor === null || report.currency === null)) {
    return `a ${report.status} report must carry amount and currency`;
  }
  if (report.amountMinor !== null && report.amountMinor !== attempt.amountMinor) {
    return `amount ${report.amountMinor} differs from the attempt’s ${attempt.amountMinor}`;
  }
  if (report.currency !== null && report.currency !== attempt.currency) {
    return `currency ${report.currency} differs from the attempt’s ${attempt.currency}`;
  }
  return null;
}

/**
 * Applies ONE report to a locked attempt and its locked order, forward only (docs/design.md §6): a mismatch (provider,
 * payment id, merchant reference, order, amount, currency) is `rejected` with no state change; otherwise the
 * allowed attempt transition is made; the first move to `succeeded` marks the order `paid` and enqueues its
 * fulfilment once (`FULFIL_TOPIC`, `order:<id>`) in the same transaction; `refunded` on a succeeded attempt moves
 * the order to `refunded` and enqueues `REFUND_TOPIC` once when it refunds the whole amount (`refundedMinor` null
 * or at least the attempt's amount; above it the report is also alerted, {@link REFUNDED_PAST_CAPTURED}), while a
 * partial refund (`refundedMinor` below the amount) is journaled and leaves the order as it is (issue #34 item 1); `refunded` on a still active attempt (`creating`,
 * `pending`, `requires_action`, `unknown`: the refund overtook its success) is `parked` with
 * {@link REFUND_WAITS_FOR_SUCCESS} and nothing changed, so the caller keeps it in the inbox until the success is
 * applied. Anything else (same status, a late "pending" after "succeeded") is `unchanged`. Writes no journal row;
 * the caller does, or has it made with the report's own writes (`ApplyContext.alongside`: one statement on
 * PostgreSQL).
 *
 * One journaled, alerted exception to forward-only ({@link applyLateSuccess}): a `succeeded` report on an attempt
 * recorded `failed` or `cancelled` means the provider took the money (Stripe's `payment_intent.payment_failed` is
 * not terminal: the intent returns to `requires_payment_method` and may still succeed; a capture may beat a
 * cancel). It is never ignored: the attempt becomes `succeeded`; when the order can still be paid and no other
 * attempt of it succeeded, the order becomes `paid` by this attempt and fulfilment is enqueued once; when another
 * attempt already paid it (a double charge) or the order is cancelled/refunded, nothing else changes — no second
 * fulfilment — and the alert asks for a refund or review. Every other move stays forward-only.
 * A `refunded` report on a succeeded attempt that is not the one that paid the order (a double charge being
 * refunded) leaves the order as it is.
 */
export async function applyReport<DB>(
  ctx: ApplyContext<DB>,
  order: Order,
  attempt: PaymentAttempt,
  report: PaymentReport,
): Promise<AppliedReport> {
  const ids = { attemptId: attempt.id, orderId: order.id };
  const mismatch = mismatchOf(attempt, report);
  const change: { -readonly [K in keyof AttemptChange]: AttemptChange[K] } = {};
  let result: Decided;
  if (mismatch !== null) {
    result = { ...ids, decision: 'rejected', reason: mismatch, becamePaid: false, alert: true };
    return await written(ctx, order, attempt, change, result);
  }
  if (report.paymentId !== null && attempt.providerPaymentId === null) change.providerPaymentId = report.paymentId;
  if (report.status === 'refunded') {
    result = await applyRefund(ctx, order, attempt, report.refundedMinor ?? null);
  } else if (report.status === 'succeeded' && (attempt.status === 'failed' || attempt.status === 'cancelled')) {
    change.status = 'succeeded';
    result = await applyLateSuccess(ctx, order, attempt);
  } else {
    const target: AttemptStatus = report.status === 'not_found' ? 'failed' : report.status;
    const move = nextAttemptStatus(attempt.status, target);
    if (move.kind !== 'move') {
      const reason =
        move.kind === 'noop'
          ? `attempt is already ${attempt.status}`
          : `${attempt.status} → ${target} is not a forward move; ignored`;
      result = { ...ids, decision: 'unchanged', reason, becamePaid: false, alert: false };
    } else {
      change.status = target;
      if (report.actionUrl !== null) change.actionUrl = report.actionUrl;
      if (report.status === 'not_found') change.lastError = 'provider has no payment for this merchant reference';
      else if (report.error !== null) change.lastError = report.error;
      result = { ...ids, decision: 'applied', reason: null, becamePaid: false, alert: false };
      if (target === 'succeeded') {
        const paid = nextOrderStatus(order.status, 'paid');
        if (paid.kind === 'move') {
          result = { ...result, becamePaid: true, ...moveOrder(ctx, order, 'paid', attempt.id) };
        } else {
          const reason = `payment succeeded but order is ${order.status}: needs a refund or review`;
          result = { ...result, reason, alert: true };
        }
      }
    }
  }
  return await written(ctx, order, attempt, change, result);
}

/**
 * The end of {@link applyReport}: makes the writes `result` decided, the attempt's `change` (when it has any) and
 * the caller's `alongside` write, all started at once (one statement on PostgreSQL: `together`), and answers the
 * attempt and the order as written.
 */
async function written<DB>(
  ctx: ApplyContext<DB>,
  order: Order,
  attempt: PaymentAttempt,
  change: AttemptChange,
  result: Decided,
): Promise<AppliedReport> {
  const changed = Object.keys(change).length > 0;
  const { writes = [], ...decided } = result;
  const applied: AppliedReport = {
    ...decided,
    attempt: changed ? attemptAsWritten(attempt, change, ctx.nowMs) : attempt,
    order: result.order ?? order,
  };
  const { alongside } = ctx;
  if (changed) writes.push(() => updateAttempt(ctx.on, attempt.id, change, ctx.nowMs));
  if (alongside !== undefined) writes.push(() => alongside(applied));
  // Independent writes (the order, its job, the attempt, the caller's journal row): one statement on PostgreSQL,
  // held to the next statement in a group commit (none of them sends another after its first is answered, except
  // the job's trace row, written only while an OpenTelemetry SDK records).
  await together(ctx.trx, ctx.on.statements.dialect.name, writes, { hold: activeTracer() === undefined });
  return applied;
}

/**
 * The order moved to `status` (`paid` by `paidBy`, or `refunded`) and its job enqueued once (`FULFIL_TOPIC` or
 * `REFUND_TOPIC`, dedupe key `order:<id>`): the order as written and the two writes, made at `applyReport`'s end.
 */
function moveOrder<DB>(
  ctx: ApplyContext<DB>,
  order: Order,
  status: Extract<OrderStatus, 'paid' | 'refunded'>,
  attemptId: string,
): { readonly order: Order; readonly writes: Write[] } {
  const paidBy = status === 'paid' ? attemptId : undefined;
  const topic = status === 'paid' ? FULFIL_TOPIC : REFUND_TOPIC;
  return {
    order: orderAsWritten(order, status, ctx.nowMs, paidBy),
    writes: [
      () => moveOrderStatus(ctx.on, order, status, ctx.nowMs, paidBy),
      () => ctx.outbox.enqueueOnce(ctx.trx, topic, `order:${order.id}`, { orderId: order.id, attemptId }),
    ],
  };
}

/** Another attempt of the order that succeeded (a double charge), by its id. */
const OTHER_SUCCEEDED = paymentsStatement(['orderId', 'attemptId'], (db, p) =>
  db
    .selectFrom(ATTEMPTS_TABLE)
    .select('id')
    .where('order_id', '=', p.orderId)
    .where('status', '=', 'succeeded')
    .where('id', '!=', p.attemptId),
);

/** Start of the journal reason and alert of a success reported on an attempt recorded `failed`/`cancelled`. */
export const MONEY_ON_CLOSED_ATTEMPT = 'money taken on an attempt recorded';

/**
 * The exception described on {@link applyReport}: `attempt` (locked, `failed` or `cancelled`) was reported
 * `succeeded`; the caller writes the attempt's move to `succeeded`. Marks the order paid by this attempt and
 * enqueues fulfilment once when the order can still move to `paid` and no other attempt of it succeeded;
 * otherwise changes nothing else. Always `applied` with `alert: true` and a reason starting with
 * {@link MONEY_ON_CLOSED_ATTEMPT} that says what a human must do (refund or review; cancel a still open attempt).
 */
async function applyLateSuccess<DB>(ctx: ApplyContext<DB>, order: Order, attempt: PaymentAttempt): Promise<Decided> {
  const ids = { attemptId: attempt.id, orderId: order.id };
  const prefix = `${MONEY_ON_CLOSED_ATTEMPT} ${attempt.status}`;
  const other = (await runPaymentsStatement(ctx.on, OTHER_SUCCEEDED, { orderId: order.id, attemptId: attempt.id }))
    .rows[0];
  const paidBy = order.paidAttemptId ?? other?.id ?? null;
  if (nextOrderStatus(order.status, 'paid').kind === 'move' && other === undefined) {
    // Read before the order's move is written: this attempt (failed or cancelled) is not active either way.
    const open = await findActiveAttempt(ctx.on, order.id);
    const reason =
      `${prefix}: applied as a late success, order paid by this attempt; review` +
      (open === null ? '' : `; attempt ${open.id} is still open: cancel it (refund it if it is charged too)`);
    return {
      ...ids,
      decision: 'applied',
      reason,
      becamePaid: true,
      alert: true,
      ...moveOrder(ctx, order, 'paid', attempt.id),
    };
  }
  const reason =
    paidBy !== null && paidBy !== attempt.id
      ? `${prefix}: order already paid by attempt ${paidBy}: double charge, refund or review`
      : `${prefix}: order is ${order.status}: refund or review`;
  return { ...ids, decision: 'applied', reason, becamePaid: false, alert: true };
}

/** Journal reason of a refund kept parked because its payment has not succeeded yet. */
export const REFUND_WAITS_FOR_SUCCESS =
  'refund arrived before its payment succeeded: parked until the success is applied';

/**
 * A `refunded` report on `attempt`; `refundedMinor` is the cumulative refunded amount it reports (`null`: the
 * whole amount). Below the attempt's amount: {@link applyPartialRefund}. At or above it: the order is refunded
 * once; above it also alerted (refunds past the captured amount).
 */
async function applyRefund<DB>(
  ctx: ApplyContext<DB>,
  order: Order,
  attempt: PaymentAttempt,
  refundedMinor: number | null,
): Promise<Decided> {
  const ids = { attemptId: attempt.id, orderId: order.id };
  if (isActiveAttempt(attempt.status)) {
    // Out of order: the success it refunds is still to come. Never drop it: it waits in the inbox.
    return { ...ids, decision: 'parked', reason: REFUND_WAITS_FOR_SUCCESS, becamePaid: false, alert: false };
  }
  if (attempt.status !== 'succeeded') {
    const reason = `refund reported for a ${attempt.status} attempt; not applied`;
    return { ...ids, decision: 'unchanged', reason, becamePaid: false, alert: true };
  }
  if (order.paidAttemptId !== null && order.paidAttemptId !== attempt.id) {
    const reason = `refund of a payment that did not pay the order (attempt ${order.paidAttemptId} did): order stays ${order.status}`;
    return { ...ids, decision: 'unchanged', reason, becamePaid: false, alert: false };
  }
  if (refundedMinor !== null && refundedMinor < attempt.amountMinor) {
    return applyPartialRefund(ctx, order, attempt, refundedMinor);
  }
  const over =
    refundedMinor !== null && refundedMinor > attempt.amountMinor
      ? `${REFUNDED_PAST_CAPTURED}: ${refundedMinor} refunded of ${attempt.amountMinor} captured; review`
      : null;
  const move = nextOrderStatus(order.status, 'refunded');
  if (move.kind !== 'move') {
    const reason = over ?? `order is already ${order.status}`;
    return { ...ids, decision: 'unchanged', reason, becamePaid: false, alert: over !== null };
  }
  const moved = moveOrder(ctx, order, 'refunded', attempt.id);
  return { ...ids, decision: 'applied', reason: over, becamePaid: false, alert: over !== null, ...moved };
}

/** Start of the journal reason of a partial refund (the order keeps its status). */
export const PARTIAL_REFUND = 'partial refund';
/** Start of the journal reason and alert of refunds reported past the attempt's captured amount. */
export const REFUNDED_PAST_CAPTURED = 'refunds exceed the captured amount';

/**
 * A refund of part of a succeeded attempt that paid the order (`refundedMinor`, cumulative, below its amount):
 * the order keeps its status (`paid`, `fulfilling`, `completed`: it is still fulfilled), nothing is enqueued, and
 * the journal says how much is refunded (`applied`, reason {@link PARTIAL_REFUND}…). An amount not above the one
 * already recorded for the attempt (a late or repeated event: amounts are cumulative) is `unchanged`.
 */
async function applyPartialRefund<DB>(
  ctx: ApplyContext<DB>,
  order: Order,
  attempt: PaymentAttempt,
  refundedMinor: number,
): Promise<Decided> {
  const ids = { attemptId: attempt.id, orderId: order.id };
  const recorded = await refundedOfAttempt(ctx.on, attempt.id);
  const of = `${refundedMinor} of ${attempt.amountMinor} ${attempt.currency} minor units refunded`;
  if (refundedMinor <= recorded) {
    const reason = `${PARTIAL_REFUND} already recorded (${recorded} refunded); ${of}`;
    return { ...ids, decision: 'unchanged', reason, becamePaid: false, alert: false };
  }
  const reason = `${PARTIAL_REFUND}: ${of}; order stays ${order.status}`;
  return { ...ids, decision: 'applied', reason, becamePaid: false, alert: false };
}

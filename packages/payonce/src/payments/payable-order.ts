import type { Transaction } from 'kysely';
import { findAttempt } from './attempt-rows.js';
import type { Order } from './order.js';
import { type OrderStatus, PAID_ORDER_STATUSES } from './order-status.js';
import type { PaymentsContext } from './payments-context.js';
import { paymentsSql } from './payments-sql.js';
import { lockOrderIn } from './provider-attempt.js';

/** Who may pay an order, for `Payments.lockPayableOrderIn`. */
export interface PayableOrderRule {
  /** The provider whose call asks (the attempts' `provider`, e.g. `click`). */
  readonly provider: string;
  /** The only currency this provider charges (ISO 4217, e.g. `UZS`): an order in another is not payable. */
  readonly currency: string;
  /**
   * Also answer an order already PAID through an attempt of `provider`, so the provider engine can answer it from
   * its own transaction ("already paid": Click -4, Uzum 10008) rather than as an unknown order. @default false
   */
  readonly orPaidByProvider?: boolean;
}

/** The order statuses a provider-started payment may begin on (docs/payments.md state machine). */
const PAYABLE: ReadonlySet<OrderStatus> = new Set<OrderStatus>(['draft', 'awaiting_payment']);
const PAID: ReadonlySet<OrderStatus> = new Set(PAID_ORDER_STATUSES);

/** See `Payments.lockPayableOrderIn`. */
export async function lockPayableOrderIn<DB>(
  ctx: PaymentsContext<DB>,
  trx: Transaction<DB>,
  orderId: string | null,
  rule: PayableOrderRule,
): Promise<Order | null> {
  const locked = orderId === null ? null : await lockOrderIn(ctx, trx, orderId);
  if (locked === null || locked.order.currency !== rule.currency) return null;
  const { order, activeAttempt } = locked;
  if (rule.orPaidByProvider === true && PAID.has(order.status) && order.paidAttemptId !== null) {
    const paidBy = await findAttempt(paymentsSql(ctx, trx), order.paidAttemptId);
    return paidBy?.provider === rule.provider ? order : null;
  }
  if (!PAYABLE.has(order.status)) return null;
  if (activeAttempt !== null && activeAttempt.provider !== rule.provider) return null;
  return order;
}

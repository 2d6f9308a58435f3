import { InvalidOption } from '../../core/errors.js';
import { transaction } from '../../outbox/sql-transaction.js';
import { PAID_ORDER_STATUSES } from '../../payments/order-status.js';
import type { Payments } from '../../payments/payments.js';
import { findCharge } from './telegram-charges.js';
import { enqueueOrderRefund, enqueueStrayRefund, isChargeId, orderPaidBy, payerOf } from './telegram-star-refund.js';

/** What names the Stars charge to refund, whatever became of it: the charge, and optionally its order and payer. */
export interface StarChargeRefundRequest {
  /** The `telegram_payment_charge_id` of the `successful_payment`. */
  readonly chargeId: string;
  /**
   * The order the caller expects the charge to be for (e.g. the order of a `/orders/:id/…` route): given, the charge
   * must have been sent for this order (its `invoice_payload`), else the request is refused. Required only for a
   * charge received before migration `0015-telegram-charges`.
   */
  readonly orderId?: string;
  /** The payer, optional: as in `StarRefundRequest` (refused when not the payer of record). */
  readonly userId?: number;
}

/**
 * Which refund a `refundStarCharge` request asked for: `order` — the charge paid its order, which is
 * still paid, and the job refunds the order (`refunded`); `stray` — the charge paid no order that is still paid, and
 * the job records the refund on the charge, the order (if any) kept as it is.
 */
export type StarRefundKind = 'order' | 'stray';

/**
 * Enqueues the refund of one Stars charge, deciding from the recorded charge (`payonce_telegram_charges`) and its
 * journal row which refund it is, in one transaction that first locks the charge's order: the charge that paid an
 * order still paid (`paid`, `fulfilling`, `completed`) refunds the order, as `enqueueStarRefund`; any other charge
 * (declined, parked, rejected, a double charge, or the payment of an order no longer paid) is refunded on its own, as
 * `enqueueStrayStarRefund`. Both write the same job (topic `telegram.refund`, dedupe `charge:<charge id>`), so a
 * repeat — also after the order's refund, when it reads `stray` — enqueues nothing and refunds nothing twice. The
 * refund goes to the payer of record.
 * @returns which refund was asked (`order` or `stray`).
 * @throws {InvalidOption} (`chargeId`) not a charge id; no such charge recorded (and, before migration `0015`, none
 *   that paid `orderId`); `orderId` given and the charge was sent for another order or none; a `stray` charge that is
 *   not a Stars (`XTR`) charge. (`userId`) not the payer of record, or missing where none is recorded.
 */
export async function enqueueStarChargeRefund<DB>(
  payments: Payments<DB>,
  request: StarChargeRefundRequest,
): Promise<StarRefundKind> {
  if (!isChargeId(request?.chargeId)) throw new InvalidOption('chargeId', 'must be a telegram_payment_charge_id');
  const { chargeId } = request;
  const orderId = request.orderId === undefined ? null : String(request.orderId);
  const charge = await findCharge(payments.store, chargeId);
  if (charge === null && orderId === null) throw new InvalidOption('chargeId', 'names no charge this bot received');
  if (charge !== null && orderId !== null && charge.orderRef !== orderId) {
    throw new InvalidOption('chargeId', 'is not a charge sent for this order');
  }
  const target = orderId ?? charge?.orderRef ?? null;
  return transaction(payments.store, async (trx) => {
    const order = target === null ? null : ((await payments.lockOrderIn(trx, target))?.order ?? null);
    const paying = order !== null && (await orderPaidBy(payments, trx, chargeId)) === order.id;
    if (order !== null && paying && PAID_ORDER_STATUSES.includes(order.status)) {
      await enqueueOrderRefund(payments, trx, order, chargeId, payerOf(charge, request.userId));
      return 'order';
    }
    if (charge === null) throw new InvalidOption('chargeId', 'names no charge this bot received that paid this order');
    await enqueueStrayRefund(payments, trx, charge, payerOf(charge, request.userId));
    return 'stray';
  });
}

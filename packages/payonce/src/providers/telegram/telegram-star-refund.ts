import { InvalidOption } from '../../core/errors.js';
import { effectApplied } from '../../outbox/effect-ledger.js';
import type { OutboxJob } from '../../outbox/outbox-job.js';
import type { JobContext } from '../../outbox/outbox-worker.js';
import { transaction } from '../../outbox/sql-transaction.js';
import { PAID_ORDER_STATUSES } from '../../payments/order-status.js';
import type { Payments } from '../../payments/payments.js';
import type { TelegramBotClient } from './telegram-bot-client.js';
import { TELEGRAM_STARS } from './telegram-invoice.js';
import { type TelegramRefundPayload, telegramRefundEvent } from './telegram-payment-events.js';
import { TELEGRAM_PROVIDER } from './telegram-update.js';

/** The outbox topic of Stars refunds. */
export const TELEGRAM_REFUND_TOPIC = 'telegram.refund';

/** The effect-ledger key of one charge's refund. */
export const telegramRefundEffectKey = (chargeId: string): string => `${TELEGRAM_REFUND_TOPIC}:${chargeId}`;

/** What names the Stars payment to refund: the order, the payer and the charge (from the `successful_payment`). */
export interface StarRefundRequest {
  readonly orderId: string;
  readonly userId: number;
  readonly chargeId: string;
}

/**
 * Enqueues the refund of a Stars payment, once per charge (outbox topic `telegram.refund`, dedupe
 * `charge:<charge id>`; a repeat enqueues nothing). `chargeId` must be the charge `payments` applied to the order
 * (its journal), so a foreign charge id is never refunded against this order; then, in one transaction, the order is
 * locked, must be a Stars (`XTR`) order that is paid (or fulfilling/completed), and the job is written.
 * @throws {InvalidOption} `userId` is not an integer; the order is not a paid Stars order paid by this charge.
 */
export async function enqueueStarRefund<DB>(payments: Payments<DB>, request: StarRefundRequest): Promise<void> {
  if (!Number.isSafeInteger(request?.userId)) throw new InvalidOption('userId', 'must be the payer’s integer user id');
  const journal = await payments.journalOf(String(request.orderId));
  const charged = journal.some(
    (e) => e.provider === TELEGRAM_PROVIDER && e.eventId === `charge:${request.chargeId}` && e.decision === 'applied',
  );
  if (!charged) throw new InvalidOption('chargeId', 'is not the Telegram charge that paid this order');
  await transaction(payments.store, async (trx) => {
    const order = (await payments.lockOrderIn(trx, request.orderId))?.order;
    if (!order || order.currency !== TELEGRAM_STARS || !PAID_ORDER_STATUSES.includes(order.status)) {
      throw new InvalidOption('orderId', 'must name a Stars (XTR) order that is paid');
    }
    const { orderId, userId, chargeId } = request;
    const payload: TelegramRefundPayload = {
      orderId,
      userId,
      chargeId,
      amountMinor: order.amountMinor,
      currency: order.currency,
    };
    await payments.outbox.enqueueOnce(trx, TELEGRAM_REFUND_TOPIC, `charge:${chargeId}`, payload);
  });
}

/**
 * The outbox handler of `telegram.refund`: calls `refundStarPayment(user_id, telegram_payment_charge_id)` unless the
 * effect ledger already holds this charge's refund, then records the refund (`refunded`, full amount, through
 * `payments.applyProviderEvent`) with the ledger key in one transaction. A Telegram refusal saying the charge was
 * already refunded counts as done; any other failure throws (the job is retried, then dead-lettered).
 * @throws {Error} Telegram refused or could not be reached (text without the token).
 * @see https://core.telegram.org/bots/api#refundstarpayment; docs/design.md §7 "Effect ledger".
 */
export function starRefundJob<DB>(payments: Payments<DB>, client: TelegramBotClient, now: () => number) {
  return async (job: OutboxJob, context: JobContext<DB>): Promise<void> => {
    const refund = job.payload as TelegramRefundPayload;
    const effectKey = telegramRefundEffectKey(refund.chargeId);
    if (await effectApplied(payments.store, effectKey)) return;
    const params = { user_id: refund.userId, telegram_payment_charge_id: refund.chargeId };
    const answer = await client.call<boolean>('refundStarPayment', params);
    if (!answer.ok && !/CHARGE_ALREADY_REFUNDED/.test(answer.description)) {
      throw new Error(`refundStarPayment failed (${answer.status ?? 'network'}): ${answer.description}`);
    }
    await context.once(effectKey, (trx) => payments.applyProviderEvent(telegramRefundEvent(refund, now()), trx));
  };
}

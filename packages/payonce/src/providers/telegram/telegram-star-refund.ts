import { InvalidOption } from '../../core/errors.js';
import { effectApplied } from '../../outbox/effect-ledger.js';
import type { OutboxJob } from '../../outbox/outbox-job.js';
import type { JobContext } from '../../outbox/outbox-worker.js';
import { transaction } from '../../outbox/sql-transaction.js';
import type { JournalEntry } from '../../payments/journal-entry.js';
import type { Order } from '../../payments/order.js';
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

/** The journal row of `chargeId` on the order, or `null`. */
async function chargeEntryOf<DB>(payments: Payments<DB>, orderId: string, chargeId: string) {
  const journal = await payments.journalOf(orderId);
  return journal.find((e) => e.provider === TELEGRAM_PROVIDER && e.eventId === `charge:${chargeId}`) ?? null;
}

/** True when the journaled charge is Stars money the order did not keep: refundable without refunding the order. */
const isStray = (entry: JournalEntry, order: Order): boolean =>
  entry.status === 'succeeded' &&
  entry.currency === TELEGRAM_STARS &&
  Number.isSafeInteger(entry.amountMinor) &&
  (entry.amountMinor ?? 0) > 0 &&
  (entry.decision === 'unchanged' ||
    entry.decision === 'rejected' ||
    // applied, yet not what paid the order: on a cancelled order, or an order another provider's payment paid
    (entry.decision === 'applied' && order.paidAttemptId !== entry.attemptId));

/**
 * Enqueues the refund of a Stars payment, once per charge and payer (outbox topic `telegram.refund`, dedupe
 * `charge:<charge id>:user:<user id>`; a repeat enqueues nothing, and a request with a wrong payer cannot keep the
 * right one from being enqueued; the effect ledger keeps the refund itself to one per charge). `chargeId` must be a
 * charge `payments` journaled for this order, so a foreign charge id is never refunded against it; then, in one
 * transaction, the order is locked and the job written:
 * - the charge that paid the order (`applied`, the order `paid`/`fulfilling`/`completed` by its Telegram attempt):
 *   the full amount, and the order becomes `refunded` once Telegram confirms;
 * - a Stars charge that did not pay it (a double charge, `unchanged`; a foreign amount, `rejected`; a payment for an
 *   order cancelled meanwhile or paid by another provider): its own amount, `stray: true`, the order kept as it is.
 * @throws {InvalidOption} `userId` is not an integer; the charge is not a Stars charge journaled for this order; the
 *   charge paid the order but the order is no longer paid (already refunded).
 */
export async function enqueueStarRefund<DB>(payments: Payments<DB>, request: StarRefundRequest): Promise<void> {
  if (!Number.isSafeInteger(request?.userId)) throw new InvalidOption('userId', 'must be the payer’s integer user id');
  const entry = await chargeEntryOf(payments, String(request.orderId), String(request.chargeId));
  if (entry === null) throw new InvalidOption('chargeId', 'is not a Telegram charge of this order');
  await transaction(payments.store, async (trx) => {
    const order = (await payments.lockOrderIn(trx, request.orderId))?.order;
    if (!order) throw new InvalidOption('orderId', 'names no order');
    const { orderId, userId, chargeId } = request;
    const paying =
      entry.decision === 'applied' &&
      order.currency === TELEGRAM_STARS &&
      PAID_ORDER_STATUSES.includes(order.status) &&
      order.paidAttemptId === entry.attemptId;
    let payload: TelegramRefundPayload;
    if (paying) {
      payload = { orderId, userId, chargeId, amountMinor: order.amountMinor, currency: order.currency };
    } else if (isStray(entry, order)) {
      payload = { orderId, userId, chargeId, amountMinor: entry.amountMinor as number, currency: TELEGRAM_STARS };
      payload = { ...payload, stray: true };
    } else {
      throw new InvalidOption('orderId', 'must name a Stars (XTR) order that is paid by this charge');
    }
    await payments.outbox.enqueueOnce(trx, TELEGRAM_REFUND_TOPIC, `charge:${chargeId}:user:${userId}`, payload);
  });
}

/**
 * The outbox handler of `telegram.refund`: calls `refundStarPayment(user_id, telegram_payment_charge_id)` unless the
 * effect ledger already holds this charge's refund, then records the refund (`refunded`, full amount, through
 * `payments.applyProviderEvent`; for a `stray` charge only the ledger key: the order is not touched) in one
 * transaction. A Telegram refusal saying the charge was already refunded counts as done; any other failure throws (the job is retried, then dead-lettered).
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
    // A stray charge's refund gives its money back only: the order keeps the payment that paid it (or its state).
    if (refund.stray === true) await context.once(effectKey, async () => null);
    else await context.once(effectKey, (trx) => payments.applyProviderEvent(telegramRefundEvent(refund, now()), trx));
  };
}

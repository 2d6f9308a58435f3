import type { Transaction } from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import { effectApplied } from '../../outbox/effect-ledger.js';
import type { OutboxJob } from '../../outbox/outbox-job.js';
import type { JobContext } from '../../outbox/outbox-worker.js';
import { PermanentJobFailure } from '../../outbox/permanent-job-failure.js';
import { transaction } from '../../outbox/sql-transaction.js';
import type { Order } from '../../payments/order.js';
import { PAID_ORDER_STATUSES } from '../../payments/order-status.js';
import type { PaymentAlert } from '../../payments/payment-alert.js';
import type { Payments } from '../../payments/payments.js';
import { PAYMENT_EVENTS_TABLE, type PaymentsDatabase } from '../../payments/payments-tables.js';
import { tablesIn } from '../../stores/sql/table-namespace.js';
import type { TelegramBotClient, TelegramCallResult } from './telegram-bot-client.js';
import { findCharge, markStrayRefunded, type TelegramCharge } from './telegram-charges.js';
import { TELEGRAM_STARS } from './telegram-invoice.js';
import { type TelegramRefundPayload, telegramRefundEvent } from './telegram-payment-events.js';
import { TELEGRAM_PROVIDER } from './telegram-update.js';

/** The outbox topic of Stars refunds. */
export const TELEGRAM_REFUND_TOPIC = 'telegram.refund';

/** The effect-ledger key of one charge's refund. */
export const telegramRefundEffectKey = (chargeId: string): string => `${TELEGRAM_REFUND_TOPIC}:${chargeId}`;

/** What names the Stars payment to refund: the order and the charge (from the `successful_payment`). */
export interface StarRefundRequest {
  readonly orderId: string;
  readonly chargeId: string;
  /**
   * The payer, optional: the engine refunds the payer it recorded with the charge. Given and different from it, the
   * request is refused. Required only for a charge received before migration `0015-telegram-charges`.
   */
  readonly userId?: number;
}

/** What names a charge that paid no order (declined, parked, rejected, or its order is not paid): the charge. */
export interface StrayStarRefundRequest {
  readonly chargeId: string;
  /** The payer, optional as in {@link StarRefundRequest}. */
  readonly userId?: number;
}

/** True for a `telegram_payment_charge_id` a row can hold: a string of 1-160 characters. */
export const isChargeId = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 160;

/**
 * The user id to refund: the payer of record; `given`, when present, must be it.
 * @throws {InvalidOption} (`userId`) `given` is not an integer, or is not the payer of record; no payer of record
 *   and none given.
 */
export function payerOf(charge: TelegramCharge | null, given: number | undefined): number {
  if (given !== undefined && !Number.isSafeInteger(given)) {
    throw new InvalidOption('userId', 'must be the payer’s integer user id (or left out: the payer of record)');
  }
  const recorded = charge?.userId ?? null;
  if (recorded === null) {
    if (given === undefined) throw new InvalidOption('userId', 'is required: no payer is recorded for this charge');
    return given;
  }
  if (given !== undefined && given !== recorded) {
    throw new InvalidOption('userId', 'is not the payer of this charge (the successful_payment names another user)');
  }
  return recorded;
}

/**
 * The id of the order `chargeId` paid — its journal row `charge:<charge id>` decided `applied` (a parked charge
 * matched later counts) — or `null`. One row read by primary key, inside `trx`.
 */
export async function orderPaidBy<DB>(
  payments: Payments<DB>,
  trx: Transaction<DB>,
  chargeId: string,
): Promise<string | null> {
  const row = await tablesIn<PaymentsDatabase>(payments.store, trx)
    .selectFrom(PAYMENT_EVENTS_TABLE)
    .select(['decision', 'order_id'])
    .where('provider', '=', TELEGRAM_PROVIDER)
    .where('event_id', '=', `charge:${chargeId}`)
    .executeTakeFirst();
  return row?.decision === 'applied' ? row.order_id : null;
}

/**
 * Writes the refund job of the charge that paid `order` (locked in `trx`), once per charge.
 * @throws {InvalidOption} (`orderId`) no order, or not a Stars (`XTR`) order that is paid (or fulfilling/completed).
 */
export async function enqueueOrderRefund<DB>(
  payments: Payments<DB>,
  trx: Transaction<DB>,
  order: Order | null,
  chargeId: string,
  userId: number,
): Promise<void> {
  if (!order || order.currency !== TELEGRAM_STARS || !PAID_ORDER_STATUSES.includes(order.status)) {
    throw new InvalidOption('orderId', 'must name a Stars (XTR) order that is paid');
  }
  const payload: TelegramRefundPayload = {
    orderId: order.id,
    userId,
    chargeId,
    amountMinor: order.amountMinor,
    currency: order.currency,
  };
  await payments.outbox.enqueueOnce(trx, TELEGRAM_REFUND_TOPIC, `charge:${chargeId}`, payload);
}

/**
 * Writes the refund job of a charge that paid no order still paid (`stray: true`), once per charge.
 * @throws {InvalidOption} (`chargeId`) not a Stars (`XTR`) charge.
 */
export async function enqueueStrayRefund<DB>(
  payments: Payments<DB>,
  trx: Transaction<DB>,
  charge: TelegramCharge,
  userId: number,
): Promise<void> {
  if (charge.currency !== TELEGRAM_STARS || charge.amountMinor === null) {
    throw new InvalidOption('chargeId', 'is not a Stars (XTR) charge: refund it through the payment provider');
  }
  const payload: TelegramRefundPayload = {
    orderId: charge.orderRef,
    userId,
    chargeId: charge.chargeId,
    amountMinor: charge.amountMinor,
    currency: TELEGRAM_STARS,
    stray: true,
  };
  await payments.outbox.enqueueOnce(trx, TELEGRAM_REFUND_TOPIC, `charge:${charge.chargeId}`, payload);
}

/**
 * Enqueues the refund of a Stars payment that paid an order, once per charge (outbox topic `telegram.refund`, dedupe
 * `charge:<charge id>`; a repeat enqueues nothing). The refund goes to the payer recorded with the charge
 * (`payonce_telegram_charges`); a request naming another user is refused and enqueues nothing, so a wrong request
 * never blocks the right one. `chargeId` must be the charge `payments` applied to the order: the recorded charge
 * (`findCharge`) must name this order, and in one transaction the order is locked, the charge's journal row
 * (read by its key) must say it was applied to this order, the order must be a Stars (`XTR`) order that is paid (or
 * fulfilling/completed), and the job is written. A charge that paid no order: {@link enqueueStrayStarRefund}; either
 * kind decided from the charge: {@link enqueueStarChargeRefund}.
 * @throws {InvalidOption} `userId` is not the payer of record (or missing where none is recorded); the charge did
 *   not pay this order; the order is not a paid Stars order.
 */
export async function enqueueStarRefund<DB>(payments: Payments<DB>, request: StarRefundRequest): Promise<void> {
  if (!isChargeId(request?.chargeId)) throw new InvalidOption('chargeId', 'must be a telegram_payment_charge_id');
  const { chargeId } = request;
  const orderId = String(request.orderId);
  const charge = await findCharge(payments.store, chargeId);
  const notThisOrder = () =>
    new InvalidOption(
      'chargeId',
      'is not the Telegram charge that paid this order (a charge that paid no order: requestStrayStarRefund)',
    );
  if (charge !== null && charge.orderRef !== orderId) throw notThisOrder();
  const userId = payerOf(charge, request.userId);
  await transaction(payments.store, async (trx) => {
    const order = (await payments.lockOrderIn(trx, orderId))?.order ?? null;
    if ((await orderPaidBy(payments, trx, chargeId)) !== orderId) throw notThisOrder();
    await enqueueOrderRefund(payments, trx, order, chargeId, userId);
  });
}

/**
 * Enqueues the refund of a Stars charge the engine received but that paid no order that is still paid — the money
 * the alerts call "to refund or review": a charge `declined` (no order id in the payload), `parked` (no Telegram
 * attempt of the order, e.g. the order was cancelled), `rejected` (another amount or currency), `unchanged` (a double
 * charge), or applied to an order that is not paid now (cancelled, refunded). Same topic, dedupe key and effect
 * ledger key as {@link enqueueStarRefund}, so one charge is refunded once whichever way it was asked; the payer is
 * the one of record. The job records the confirmed refund on the charge (`strayRefundedAtMs`,
 * `payonce_telegram_charges`); the order, if any, is left as it is. In one transaction the order named by the charge
 * (if any) is locked first.
 * @throws {InvalidOption} (`chargeId`) no such charge recorded, not a Stars charge, or it paid an order that is still
 *   paid (refund that one with `requestStarRefund`); (`userId`) as {@link enqueueStarRefund}.
 */
export async function enqueueStrayStarRefund<DB>(
  payments: Payments<DB>,
  request: StrayStarRefundRequest,
): Promise<void> {
  if (!isChargeId(request?.chargeId)) throw new InvalidOption('chargeId', 'must be a telegram_payment_charge_id');
  const charge = await findCharge(payments.store, request.chargeId);
  if (charge === null) throw new InvalidOption('chargeId', 'names no charge this bot received');
  const userId = payerOf(charge, request.userId);
  await transaction(payments.store, async (trx) => {
    const order = charge.orderRef === null ? null : (await payments.lockOrderIn(trx, charge.orderRef))?.order;
    const paidBy = order ? await orderPaidBy(payments, trx, charge.chargeId) : null;
    if (order && PAID_ORDER_STATUSES.includes(order.status) && paidBy === order.id) {
      throw new InvalidOption('chargeId', 'paid its order, which is still paid: refund it with requestStarRefund');
    }
    await enqueueStrayRefund(payments, trx, charge, userId);
  });
}

/** True for a Bot API failure no retry can fix: a 4xx other than 429 (the request itself is refused). */
const isPermanent = (answer: TelegramCallResult<boolean>): boolean =>
  !answer.ok && answer.status !== null && answer.status >= 400 && answer.status < 500 && answer.status !== 429;

/**
 * The outbox handler of `telegram.refund`: calls `refundStarPayment(user_id, telegram_payment_charge_id)` unless the
 * effect ledger already holds this charge's refund, then records the refund with the ledger key in one transaction:
 * for a refund of an order, `refunded` (full amount) through `payments.applyProviderEvent`; for a stray charge
 * (`stray: true`), the confirmation time on the charge (`payonce_telegram_charges`). A Telegram refusal saying the
 * charge was already refunded counts as done. A 4xx refusal (`CHARGE_NOT_FOUND`, a wrong user: no retry changes
 * it) is alerted through `alert` and throws `PermanentJobFailure` (the job is dead-lettered at once); a 429, 5xx or
 * network failure throws a plain error (the job is retried, then dead-lettered).
 * @throws {PermanentJobFailure} Telegram refused the request (4xx other than 429). @throws {Error} Telegram could not
 *   be reached or failed (text without the token).
 * @see https://core.telegram.org/bots/api#refundstarpayment; docs/design.md §7 "Effect ledger".
 */
export function starRefundJob<DB>(
  payments: Payments<DB>,
  client: TelegramBotClient,
  now: () => number,
  alert: (alert: PaymentAlert) => void = () => {},
) {
  return async (job: OutboxJob, context: JobContext<DB>): Promise<void> => {
    const refund = job.payload as TelegramRefundPayload;
    const effectKey = telegramRefundEffectKey(refund.chargeId);
    if (await effectApplied(payments.store, effectKey)) return;
    const params = { user_id: refund.userId, telegram_payment_charge_id: refund.chargeId };
    const answer = await client.call<boolean>('refundStarPayment', params);
    if (!answer.ok && !/CHARGE_ALREADY_REFUNDED/.test(answer.description)) {
      const text = `refundStarPayment failed (${answer.status ?? 'network'}): ${answer.description}`;
      if (!isPermanent(answer)) throw new Error(text);
      const reason = `${text}: the refund job is a dead letter; check the charge and the payer, then re-drive it`;
      try {
        alert({
          provider: TELEGRAM_PROVIDER,
          eventId: `refund:${refund.chargeId}`,
          attemptId: null,
          orderId: refund.orderId,
          reason,
        });
      } catch {
        // a logger's failure never changes the job's outcome
      }
      throw new PermanentJobFailure(text);
    }
    if (refund.stray === true || refund.orderId === null) {
      await context.once(effectKey, (trx) => markStrayRefunded(payments.store, trx, refund.chargeId, now()));
      return;
    }
    const orderRefund = { ...refund, orderId: refund.orderId };
    await context.once(effectKey, (trx) => payments.applyProviderEvent(telegramRefundEvent(orderRefund, now()), trx));
  };
}

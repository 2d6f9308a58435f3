import type { Transaction } from 'kysely';
import { type Clock, systemClock } from '../../core/clock.js';
import { InvalidOption } from '../../core/errors.js';
import type { JobHandler } from '../../outbox/outbox-worker.js';
import { transaction } from '../../outbox/sql-transaction.js';
import { OrderNotFound } from '../../payments/order-not-found.js';
import type { PaymentAlert } from '../../payments/payment-alert.js';
import type { Payments } from '../../payments/payments.js';
import { inProviderSpan } from '../provider-span.js';
import type { FetchLike } from './telegram-bot-api.js';
import { TelegramBotClient, type TelegramCallResult } from './telegram-bot-client.js';
import {
  enqueueStarChargeRefund,
  type StarChargeRefundRequest,
  type StarRefundKind,
} from './telegram-charge-refund.js';
import { findCharge, type TelegramCharge } from './telegram-charges.js';
import { type TelegramInvoiceParams, type TelegramInvoiceText, telegramInvoice } from './telegram-invoice.js';
import { preCheckoutOf, successfulPaymentOf } from './telegram-payment-facts.js';
import {
  DEFAULT_REFUSAL_TEXTS,
  decidePreCheckout,
  type PreCheckoutAnswer,
  type TelegramRefusalTexts,
} from './telegram-pre-checkout.js';
import { preCheckoutSpan, successfulPaymentSpan } from './telegram-span.js';
import {
  enqueueStarRefund,
  enqueueStrayStarRefund,
  type StarRefundRequest,
  type StrayStarRefundRequest,
  starRefundJob,
  TELEGRAM_REFUND_TOPIC,
} from './telegram-star-refund.js';
import { applySuccessfulPayment, type SuccessfulPaymentResult } from './telegram-successful-payment.js';
import { isUpdateId, type TelegramUpdate } from './telegram-update.js';

/** Options of {@link TelegramPayments}. */
export interface TelegramPaymentsOptions {
  /** The bot token, for Bot API request URLs only: never stored, journaled or put in an error. */
  readonly token: string;
  /** Base URL of the Bot API (a sandbox, a test's fake). @default 'https://api.telegram.org' */
  readonly apiBaseUrl?: string;
  /** The `fetch` to call. @default globalThis.fetch */
  readonly fetch?: FetchLike;
  /**
   * Milliseconds from receiving a `pre_checkout_query` to sending its answer before the answer counts as late
   * (logged through `onLateAnswer`, counted in `stats.lateAnswers`). Telegram wants it within 10 s of sending the
   * query; the default keeps 2 s for the trip. @default 8000
   */
  readonly answerBudgetMs?: number;
  /** The buyer-facing texts of a refused pre-checkout. @default DEFAULT_REFUSAL_TEXTS */
  readonly refusalTexts?: TelegramRefusalTexts;
  /** A payment the engine itself declines or cannot place (money to refund or review). @default no-op */
  readonly onAlert?: (alert: PaymentAlert) => void;
  /** A pre-checkout answered past the budget. @default console.warn of the query id, order id and times */
  readonly onLateAnswer?: (late: LatePreCheckout) => void;
  /** Time source (epoch ms). @default systemClock */
  readonly clock?: Clock;
}

/** A pre-checkout answered past `answerBudgetMs`. */
export interface LatePreCheckout {
  readonly queryId: string;
  readonly orderId: string | null;
  /** Milliseconds from receipt to the answer's send. */
  readonly elapsedMs: number;
  readonly budgetMs: number;
}

/** What the engine did with one update. */
export type TelegramPaymentStep =
  | { readonly kind: 'other' }
  | {
      readonly kind: 'pre_checkout_query';
      readonly orderId: string | null;
      readonly answer: PreCheckoutAnswer;
      /** Milliseconds the update was received at, for the budget. */
      readonly receivedAtMs: number;
      /** False while the answer waits for the caller's commit (`handleUpdate` with a transaction). */
      readonly answered: boolean;
    }
  | ({ readonly kind: 'successful_payment' } & SuccessfulPaymentResult);

/** Counters of the engine (this process). */
export interface TelegramPaymentsStats {
  readonly answered: number;
  readonly lateAnswers: number;
  readonly failedAnswers: number;
}

/**
 * Telegram Payments on `payments` (docs/payments.md), in the style of `paymeOnPayments`/`clickOnPayments`:
 * - invoices from orders (`invoiceOf`, `sendInvoice`, `createInvoiceLink`): payload = the order id;
 * - `handleUpdate(update, tx?)`, one function for the webhook intake's handler and `TelegramPoller`'s: a
 *   `pre_checkout_query` is decided from the order's locked state and opens the order's `telegram` attempt, a
 *   `successful_payment` applies `succeeded` once per `telegram_payment_charge_id`, other updates are `other`;
 * - Stars refunds through the outbox (`refundStarCharge`, or `requestStarRefund`/`requestStrayStarRefund`;
 *   `jobHandlers()`), applied once (effect ledger).
 * `payments` must be on the store the intake or poller uses.
 * @throws {InvalidOption} at construction: a bad token or base URL, or a budget that is not a positive integer.
 * @see docs/providers/telegram.md "Payments"; fixtures/providers/telegram/protocol.json "payments".
 */
export class TelegramPayments<DB> {
  readonly #payments: Payments<DB>;
  readonly #client: TelegramBotClient;
  readonly #budgetMs: number;
  readonly #texts: TelegramRefusalTexts;
  readonly #onAlert: (alert: PaymentAlert) => void;
  readonly #onLate: (late: LatePreCheckout) => void;
  readonly #clock: Clock;
  #stats = { answered: 0, lateAnswers: 0, failedAnswers: 0 };

  constructor(payments: Payments<DB>, options: TelegramPaymentsOptions) {
    this.#payments = payments;
    this.#client = new TelegramBotClient(options);
    const budget = options.answerBudgetMs ?? 8000;
    if (!Number.isSafeInteger(budget) || budget <= 0)
      throw new InvalidOption('answerBudgetMs', 'must be a positive integer');
    this.#budgetMs = budget;
    this.#texts = options.refusalTexts ?? DEFAULT_REFUSAL_TEXTS;
    this.#onAlert = options.onAlert ?? (() => {});
    this.#onLate =
      options.onLateAnswer ??
      ((late) => console.warn('payonce/telegram: pre_checkout_query answered past its budget', late));
    this.#clock = options.clock ?? systemClock;
  }

  /** This process's counters: pre-checkout answers sent, sent late, and failed to send. */
  get stats(): TelegramPaymentsStats {
    return Object.freeze({ ...this.#stats });
  }

  /**
   * The `sendInvoice`/`createInvoiceLink` parameters of an order (see `telegramInvoice`).
   * @throws {OrderNotFound} no such order. @throws {InvalidOption} see `telegramInvoice`.
   */
  async invoiceOf(orderId: string, text: TelegramInvoiceText): Promise<TelegramInvoiceParams> {
    const order = await this.#payments.findOrder(orderId);
    if (order === null) throw new OrderNotFound(String(orderId));
    return telegramInvoice(order, text);
  }

  /** Sends the order's invoice to `chatId` (`sendInvoice`); Telegram's answer, never thrown. @throws as `invoiceOf`. */
  async sendInvoice(chatId: number | string, orderId: string, text: TelegramInvoiceText) {
    const invoice = await this.invoiceOf(orderId, text);
    return this.#client.call<unknown>('sendInvoice', { chat_id: chatId, ...invoice });
  }

  /** An invoice link of the order (`createInvoiceLink`, its `result` the link). @throws as `invoiceOf`. */
  async createInvoiceLink(orderId: string, text: TelegramInvoiceText): Promise<TelegramCallResult<string>> {
    return this.#client.call<string>('createInvoiceLink', await this.invoiceOf(orderId, text));
  }

  /**
   * Applies one update. Without `tx` (the intake's or poller's default mode) the engine writes in its own short
   * transaction and answers a pre-checkout right after that commit. With `tx` (a one-commit handler's
   * transaction) it writes in `tx` only and returns the pre-checkout answer unsent (`answered: false`): send it with
   * `answer(step)` after that transaction committed — never before, since an `ok: true` must not outlive a rollback.
   * Each step is safe to repeat: a repeated query reopens the same attempt; a repeated charge changes nothing.
   * `update` is an Update as Telegram sent it (a grammY or telegraf `ctx.update` fits as it is).
   * On the webhook intake pass the event's payload (`event.payload`), not the event: a value that is not an update
   * (no integer `update_id`, e.g. the intake's `ProviderEvent`) is refused with `InvalidOption`, so the delivery
   * answers non-2xx, keeps no receipt and Telegram delivers it again, instead of being acknowledged as `other`.
   * @param receivedAtMs when the update arrived (the intake's `receivedAtMs`), for the answer budget. @default now
   * @throws {InvalidOption} (`update`) `update` is not a Telegram update object with an integer `update_id`.
   * @throws the database's errors (the caller retries the update; nothing was answered).
   */
  async handleUpdate(
    update: Pick<TelegramUpdate, 'update_id'>,
    tx?: Transaction<DB> | null,
    receivedAtMs?: number,
  ): Promise<TelegramPaymentStep> {
    if (typeof update !== 'object' || update === null || Array.isArray(update) || !isUpdateId(update.update_id)) {
      throw new InvalidOption(
        'update',
        'is not a Telegram update (no integer update_id): on the webhook intake pass event.payload, not the event',
      );
    }
    const received = receivedAtMs ?? this.#clock.now();
    const query = preCheckoutOf(update as TelegramUpdate);
    const paid = query === null ? successfulPaymentOf(update as TelegramUpdate) : null;
    if (query === null && paid === null) return { kind: 'other' };
    const write = <T>(fn: (trx: Transaction<DB>) => Promise<T>) =>
      tx ? fn(tx) : transaction(this.#payments.store, fn);
    if (paid !== null) {
      const result = await inProviderSpan(successfulPaymentSpan(paid.chargeId, paid.orderId), () =>
        write((trx) => applySuccessfulPayment(this.#payments, trx, paid, this.#onAlert, received)),
      );
      return { kind: 'successful_payment', ...result };
    }
    const facts = query as NonNullable<typeof query>;
    const answer = await inProviderSpan(preCheckoutSpan(facts.orderId), () =>
      write((trx) => decidePreCheckout(this.#payments, trx, facts, this.#texts)),
    );
    const step = {
      kind: 'pre_checkout_query',
      orderId: facts.orderId,
      answer,
      receivedAtMs: received,
      answered: false,
    } as const;
    return tx ? step : this.answer(step);
  }

  /**
   * Sends a pre-checkout step's answer (`answerPreCheckoutQuery`) once its decision committed; a step already
   * answered or of another kind is returned as it is. Past the budget the answer is still sent, then logged and
   * counted as late; a failed send is counted (Telegram then fails the checkout: no money moves).
   */
  async answer(step: TelegramPaymentStep): Promise<TelegramPaymentStep> {
    if (step.kind !== 'pre_checkout_query' || step.answered) return step;
    const elapsedMs = this.#clock.now() - step.receivedAtMs;
    const sent = await this.#client.call<boolean>('answerPreCheckoutQuery', step.answer);
    if (sent.ok) this.#stats.answered += 1;
    else this.#stats.failedAnswers += 1;
    if (elapsedMs > this.#budgetMs) {
      this.#stats.lateAnswers += 1;
      const late = {
        queryId: step.answer.pre_checkout_query_id,
        orderId: step.orderId,
        elapsedMs,
        budgetMs: this.#budgetMs,
      };
      try {
        this.#onLate(late);
      } catch {
        // a logger's failure never fails the update
      }
    }
    return { ...step, answered: sent.ok };
  }

  /**
   * Enqueues the refund of the Stars payment that paid `orderId`, once per charge, to the payer recorded with the
   * charge (`userId` may be left out; a different one is refused and nothing is enqueued).
   * @see `enqueueStarRefund` for the checks and errors (`InvalidOption`, answered 400 by the HTTP layers).
   */
  requestStarRefund(request: StarRefundRequest): Promise<void> {
    return enqueueStarRefund(this.#payments, request);
  }

  /**
   * Enqueues the refund of a Stars charge that paid no order that is still paid (declined, parked, rejected: the
   * alerts' "money to refund or review"), once per charge, to the payer of record.
   * @see `enqueueStrayStarRefund` for the checks and errors (`InvalidOption`).
   */
  requestStrayStarRefund(request: StrayStarRefundRequest): Promise<void> {
    return enqueueStrayStarRefund(this.#payments, request);
  }

  /**
   * Enqueues the refund of one Stars charge, whichever it is, once per charge, to the payer of record: the charge
   * that paid an order still paid refunds the order (`order`, as `requestStarRefund`); any other charge — declined,
   * parked, rejected, a double charge, the payment of an order no longer paid — is refunded on its own, the order
   * kept (`stray`, as `requestStrayStarRefund`). Decided from the recorded charge in one transaction; with `orderId`
   * the charge must have been sent for that order.
   * @see `enqueueStarChargeRefund` for the checks and errors (`InvalidOption`, answered 400 by the HTTP layers).
   */
  refundStarCharge(request: StarChargeRefundRequest): Promise<StarRefundKind> {
    return enqueueStarChargeRefund(this.#payments, request);
  }

  /** The charge `chargeId` as the engine recorded it (payer, payload, amount, decision), or `null`. */
  chargeOf(chargeId: string): Promise<TelegramCharge | null> {
    return typeof chargeId === 'string' && chargeId.length > 0 && chargeId.length <= 160
      ? findCharge(this.#payments.store, chargeId)
      : Promise.resolve(null);
  }

  /**
   * The outbox handlers to give an `OutboxWorker` on the payments store: `telegram.refund` (a refusal no retry can
   * change is alerted through `onAlert` and dead-lettered at once).
   */
  jobHandlers(): Record<string, JobHandler<DB>> {
    const job = starRefundJob(this.#payments, this.#client, () => this.#clock.now(), this.#onAlert);
    return { [TELEGRAM_REFUND_TOPIC]: job };
  }
}

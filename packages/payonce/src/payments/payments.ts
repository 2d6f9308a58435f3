import type { Transaction } from 'kysely';
import { type Clock, systemClock } from '../core/clock.js';
import { InvalidOption } from '../core/errors.js';
import { IdempotencyGuard } from '../core/idempotency-guard.js';
import { Outbox } from '../outbox/outbox.js';
import type { SqlStore } from '../stores/sql/sql-store.js';
import { type CheckoutResult, type CreateOrderOptions, createOrder, openCheckout } from './checkout.js';
import type { JournalEntry } from './journal-entry.js';
import type { Money } from './money.js';
import type { Order } from './order.js';
import { advanceOrder, attemptsOf, findOrder, journalOf, parkedEvents } from './order-queries.js';
import type { OrderStatus } from './order-status.js';
import { lockPayableOrderIn, type PayableOrderRule } from './payable-order.js';
import type { PaymentAlert } from './payment-alert.js';
import type { PaymentAttempt } from './payment-attempt.js';
import type { PaymentProvider } from './payment-provider.js';
import type { PaymentsContext } from './payments-context.js';
import { paymentsSql } from './payments-sql.js';
import { prelockTargets } from './prelocked-targets.js';
import { type LockedOrder, lockOrderIn, openProviderAttempt, type ProviderPaymentRef } from './provider-attempt.js';
import { type ApplyEventOptions, applyProviderEvent, type EventResult } from './provider-events.js';
import type { ProviderPaymentEvent } from './provider-payment-event.js';
import { type AttemptReconciliation, type ReconcileMode, reconcileAttempt } from './reconcile-attempt.js';
import {
  type ReconcileAttemptsOptions,
  type ReconcileOptions,
  type ReconcileReport,
  reconcile,
  reconcileAttempts,
} from './reconciliation.js';
import { refundedOfAttempt } from './refund-amounts.js';
import type { Transition } from './transition.js';

export type { CheckoutResult, CreateOrderOptions } from './checkout.js';
export type { PayableOrderRule } from './payable-order.js';
export type { PaymentAlert } from './payment-alert.js';
export type { LockedOrder, ProviderPaymentRef } from './provider-attempt.js';
export { type ApplyEventOptions, type EventResult, PAYMENTS_RECEIPT_PREFIX } from './provider-events.js';
export type { AttemptReconciliation, ReconcileMode } from './reconcile-attempt.js';
export type { ReconcileAttemptsOptions, ReconcileOptions, ReconcileReport } from './reconciliation.js';

/** Options of {@link Payments}. */
export interface PaymentsOptions {
  /** The payment provider attempts are created with. */
  provider: PaymentProvider;
  /** Time source (epoch ms UTC). @default systemClock */
  clock?: Clock;
  /** Called after commit for every rejected report (mismatch) and anomaly; also kept in the journal. */
  onAlert?: (alert: PaymentAlert) => void;
  /**
   * `GuardOptions.detectNestedClaims` of the guard that records a provider event's receipt in its transaction
   * (`applyProviderEvent` without `receiptHeld`). @default unset (the guard's default)
   */
  detectNestedClaims?: boolean;
}

/**
 * Orders, payment attempts, checkout, provider events and reconciliation on one SQL store (SQLite, PostgreSQL,
 * MySQL/MariaDB; migrations `0002-payments` and `0003-outbox`), exactly-once in effect (docs/design.md §6):
 * - at most one active attempt per order (database-enforced), a new attempt (new id, new key) only after a
 *   confirmed `failed`/`cancelled`;
 * - no network call inside a transaction; the provider is called with the attempt's stored key;
 * - provider events applied in one transaction with their receipt, forward only, mismatches rejected;
 * - the first move to paid enqueues fulfilment once (outbox topic `order.fulfil`, dedupe `order:<orderId>`).
 * @see docs/design.md §6–7; seed 002 (`openCheckout`, `receiveWebhook`).
 * @example
 * const payments = new Payments(store, { provider });
 * const order = await payments.createOrder('user-1', { amountMinor: 1999, currency: 'EUR' });
 * const checkout = await payments.openCheckout(order.id, 'user-1');
 */
export class Payments<DB> {
  readonly store: SqlStore<DB>;
  readonly provider: PaymentProvider;
  /** The outbox fulfilment and refund jobs are enqueued to. */
  readonly outbox: Outbox<DB>;
  /** Records (provider, event id) receipts inside the event's transaction. */
  readonly guard: IdempotencyGuard<SqlStore<DB>>;
  /** What the use cases (`checkout.ts`, `provider-events.ts`, `reconciliation.ts`, `order-queries.ts`) work with. */
  private readonly context: PaymentsContext<DB>;

  constructor(store: SqlStore<DB>, options: PaymentsOptions) {
    if (!options?.provider) throw new InvalidOption('provider', 'a PaymentProvider is required');
    const clock: Clock = options.clock ?? systemClock;
    this.store = store;
    this.provider = options.provider;
    this.outbox = new Outbox(store, { clock });
    const nested = options.detectNestedClaims;
    this.guard = new IdempotencyGuard(store, {
      clock,
      ...(nested === undefined ? {} : { detectNestedClaims: nested }),
    });
    const { provider, outbox, guard } = this;
    this.context = Object.freeze({ store, provider, outbox, guard, clock, onAlert: options.onAlert ?? (() => {}) });
  }

  /**
   * Creates an order in `draft` for `principal`, with a random UUID id, or the caller's `options.id`. With `trx`
   * the row is written in the caller's open transaction (e.g. the one-commit transaction of `POST /orders`, which
   * also holds the request's `Idempotency-Key` receipt), so the order and the receipt commit together. A chosen id
   * is inserted with `ON CONFLICT DO NOTHING` (safe in the caller's transaction): when an order of the same
   * principal, amount and currency holds it already, that order is answered as it is now (a repeat creates nothing).
   * @throws {InvalidMoney} amount not a positive integer of minor units, or currency not ISO-4217 upper case.
   * @throws {InvalidOption} empty principal or longer than 160 characters; (`id`) not 1–64 of `A–Z a–z 0–9 . _ : -`.
   * @throws {OrderIdTaken} the chosen id is held by an order of another principal, amount or currency.
   */
  createOrder(principal: string, money: Money, trx?: Transaction<DB>, options?: CreateOrderOptions): Promise<Order> {
    return createOrder(this.context, principal, money, trx, options);
  }

  /**
   * Locks the order in the caller's transaction `trx` (`SELECT … FOR UPDATE`; SQLite: the write lock) and reads it
   * with its active attempt, so a provider's call that asks "may this order be paid?" decides on a state no
   * checkout can change before `trx` ends. `null` when no order has this id (or it is no id a row can hold).
   * @throws the driver's error when the database fails.
   */
  lockOrderIn(trx: Transaction<DB>, orderId: string): Promise<LockedOrder | null> {
    return lockOrderIn(this.context, trx, orderId);
  }

  /**
   * The rule every provider-started payment (Payme, Click, Uzum) asks before it opens: the order `orderId`, locked
   * in the provider call's transaction `trx` (as `lockOrderIn`), when `rule.provider` may pay it — in
   * `rule.currency`, `draft` or `awaiting_payment`, and with no active attempt of another provider (one active
   * attempt per order across checkout and every provider); with `rule.orPaidByProvider`, also an order already
   * paid through an attempt of `rule.provider`. `null` otherwise (no such order, or no id a row can hold; another
   * currency; paid, cancelled or refunded; another provider's payment under way), which each engine answers with
   * its own "no such account" error.
   * @throws the driver's error when the database fails.
   * @see docs/design.md §6 (one active attempt per order); docs/payments.md "Provider-started payments".
   */
  lockPayableOrderIn(trx: Transaction<DB>, orderId: string | null, rule: PayableOrderRule): Promise<Order | null> {
    return lockPayableOrderIn(this.context, trx, orderId, rule);
  }

  /**
   * Opens the attempt of a payment the PROVIDER started (Payme's CreateTransaction, a Click Prepare): in the
   * caller's transaction `trx`, locks the order and inserts an attempt `pending` of `ref.provider` with
   * `ref.paymentId` as its provider payment id, the order's amount and currency; a `draft` order moves to
   * `awaiting_payment`. It takes the order's one active attempt, so no checkout of another provider can open
   * beside it. Its outcome is then applied like any provider event: `applyProviderEvent({ provider, paymentId,
   * status: 'succeeded' | 'cancelled' | 'refunded', … }, trx)`. A repeat for the attempt already open for this
   * (provider, payment id) answers that attempt.
   * @throws {OrderNotFound} no such order. @throws {OrderNotPayable} the order is paid, cancelled or refunded, or
   *   another attempt is active. @throws {InvalidOption} `provider` not 1–64 characters, `paymentId` not 1–64
   *   printable ASCII.
   * @see docs/design.md §6 (one active attempt per order).
   */
  openProviderAttempt(trx: Transaction<DB>, orderId: string, ref: ProviderPaymentRef): Promise<PaymentAttempt> {
    return openProviderAttempt(this.context, trx, orderId, ref);
  }

  /**
   * Opens (or returns) the payment of an order, as docs/design.md §6 and seed 002 describe:
   * 1. one short transaction locks the order: paid → `already-paid` with the attempt that paid it; an active attempt → that attempt
   *    (`created: false`, no provider call); else inserts an attempt `creating` with key
   *    `payment-attempt:<attemptId>` (the partial unique index makes a second active attempt impossible);
   * 2. outside any transaction, only the creating call asks the provider, with that key and the attempt id as
   *    merchant reference;
   * 3. a second short transaction records the answer forward-only: the provider's status; `failed` on
   *    `ProviderDeclined`; `unknown` on any other error (timeout, network) — which keeps the order blocked
   *    until `reconcile` learns the truth. A webhook that arrived first is never rolled back.
   * @throws {OrderNotFound} no such order for this principal.
   * @throws {OrderNotPayable} the order is `cancelled` or `refunded`.
   * @throws the driver error if the database fails (the attempt, if created, stays `creating` for `reconcile`).
   */
  openCheckout(orderId: string, principal: string): Promise<CheckoutResult> {
    return openCheckout(this.context, orderId, principal);
  }

  /**
   * Applies one verified provider event in ONE transaction (docs/design.md §6, seed 002 `receiveWebhook`): records the
   * receipt (`payments:<provider>`, event id) through `IdempotencyGuard.runInTransaction` (see
   * {@link PAYMENTS_RECEIPT_PREFIX}; safe to call from a webhook intake handler that already claimed the
   * delivery) and a journal row keyed (provider, event id) — a second delivery of the same id
   * returns the first decision with `duplicate: true` and changes nothing; locates the attempt by provider
   * payment id, else by merchant reference; with none, parks the event in the inbox (journal row `parked`),
   * matched when the attempt learns its payment id (checkout answer, reconciliation); checks provider, payment id,
   * merchant reference, order, amount and currency — a mismatch is `rejected`, journaled and alerted, with no
   * state change; applies the allowed forward transition (two event ids about one payment → one transition);
   * the first move to paid marks the order paid and enqueues fulfilment once; `refunded` after `succeeded`
   * refunds the order; a `refunded` that arrives while its attempt is still active (before the success it
   * refunds) is `parked` — never dropped — and applied (paid → refunded) in the transaction that applies the
   * success, whichever path brings it (webhook, checkout answer, reconciliation); a `succeeded` on an attempt
   * recorded `failed`/`cancelled` is never ignored: applied as a late success when the order can still be paid,
   * else alerted as money to refund (see `applyReport`, `MONEY_ON_CLOSED_ATTEMPT`). Every event gets one journal row.
   * With `trx` (the caller's open transaction on the store's database: a one-commit intake handler's
   * `context.tx`/`context.payonceTx`, or `withDrizzleTransaction(store, tx, (trx) => …)` of `payonce/tx/*`) the
   * receipt, the transition, the journal row and the fulfilment outbox row are written in THAT transaction and
   * commit or roll back with the caller's own writes; nothing is retried here (the caller owns the transaction), and
   * `onAlert` is called when the event is applied, before the caller commits (the journal row is the durable record).
   * With `options.receiptHeld` (and `trx`) the caller's transaction already holds this event's receipt (a one-commit
   * intake handler: its receipt commits with these writes) and no `payments:` receipt is claimed (see
   * `ApplyEventOptions`).
   * @throws {InvalidPaymentEvent} no receipt key, an unknown status, neither payment id nor merchant reference, or an
   *   `orderId` that is no stored id (1–64 printable ASCII characters: it could name no order).
   * @throws {InvalidRequestKey} the provider name is too long for the `payments:` receipt prefix (160 in all).
   * @throws {InvalidOption} `receiptHeld` is no boolean, or is true without `trx`.
   * @throws {RequestInProgress} / {StoreUnavailable} from the guard (nothing committed; the provider retries).
   */
  applyProviderEvent(
    event: ProviderPaymentEvent,
    trx?: Transaction<DB>,
    options?: ApplyEventOptions,
  ): Promise<EventResult> {
    return applyProviderEvent(this.context, event, trx, options);
  }

  /**
   * Locks ahead, in `trx`, the orders and attempts that `events` will be applied to by `applyProviderEvent` in that
   * same transaction: a group-commit batch's events, before their handlers run (`TransactionalWebhookEndpoint.
   * prepareBatch`). PostgreSQL only, in a transaction payonce opened (the intake's group commit, `store.transaction`;
   * elsewhere nothing is sent): two statements — the orders, locked in order of their id, then the attempts, read
   * after every order lock is held — instead of two an event; each event's `applyProviderEvent` in `trx` then takes
   * its order and attempt from here, read as its own statements would read them (the locks held since). Left to
   * their own statements: events without a receipt key or a payment id; any payment id, event id (receipt key), order
   * or attempt named twice in `events`; the events of every provider but the most frequent one; and everything once
   * `trx` locks an order by another path (an event found by merchant reference, a drain of parked events, a checkout,
   * a reconciliation) or parks an event. Call it at the start of the transaction, never inside a savepoint that
   * the application may roll back itself (that releases the locks; payonce's own rollbacks to a savepoint drop what
   * was read ahead), and only when every later write of these orders and attempts in `trx` goes through payonce's
   * payments (not the application's own SQL). Returns how
   * many events were locked ahead (`0` on SQLite and MySQL/MariaDB, in a transaction payonce did not open, and when
   * none of the payment ids is known yet).
   * @see docs/design.md §11 "Fewer round trips" (a batch's orders and attempts locked together).
   * @throws whatever the driver throws (the transaction is then unusable: roll it back).
   */
  prelockProviderEvents(events: readonly ProviderPaymentEvent[], trx: Transaction<DB>): Promise<number> {
    const refs = events.flatMap((event) =>
      event.key === null
        ? []
        : [
            {
              provider: event.provider,
              paymentId: event.paymentId,
              eventProvider: event.key.provider,
              eventId: event.key.externalId,
            },
          ],
    );
    return prelockTargets(paymentsSql(this.context, trx), refs);
  }

  /**
   * The reconciliation job (docs/design.md §6): every attempt of this provider in `creating` or `unknown` not updated for
   * `olderThanMs` is looked up by merchant reference (cheap, and finds the payment in the common case); a payment
   * found → its status, applied forward-only. A look-up answering "no payment with this reference" is NOT taken as
   * a failure: our create may still be in flight at the provider (a slow provider commits after our timeout; a
   * process killed mid-create). The create is re-sent with the attempt's SAME idempotency key
   * (`payment-attempt:<id>`) and parameters, so the provider returns the payment the first request created, or
   * creates it now — exactly one payment either way — and its answer is recorded (journal event type
   * `reconciliation.resend`). Only a definitive refusal (`ProviderDeclined`) makes the attempt `failed` (which frees
   * the order); any other error (timeout, "request with this key in progress" 409, 5xx) leaves the attempt as it
   * is, still blocking a new attempt, for the next run. A look-up that throws leaves the attempt as it is. Then
   * parked inbox events whose attempt can now be found are matched again (newest unmatchable rows never starve
   * them). Set `olderThanMs` above the provider call timeout so a create still in flight is not judged.
   * @see docs/design.md §6 ("a timeout is unknown, never failed"); https://docs.stripe.com/api/idempotent_requests (a retry
   * with the same key returns the first result, 409 while the first request is still being processed).
   * @throws {InvalidOption} `olderThanMs` not a non-negative integer, `limit` not a positive integer.
   */
  reconcile(options: ReconcileOptions = {}): Promise<ReconcileReport> {
    return reconcile(this.context, options);
  }

  /**
   * Reconciles one attempt now (the reconciliation job's step, for an operator's "reconcile this attempt"): asks
   * the provider by merchant reference (`getPaymentByReference(attempt.id)`) and records the answer as `mode`
   * says — `create-answer` as `reconcile` does (re-sending the create when the provider knows none), `event` as a
   * provider event through `applyProviderEvent` with receipt `<receiptPrefix>:<attemptId>:<uuid>` (a payment in
   * the attempt's own status, or none, changes nothing). A provider error is returned as `lookup-failed` or
   * `resend-failed`, never thrown. @see docs/design.md §6 "Reconciliation".
   * @throws the database's error.
   */
  reconcileAttempt(attempt: PaymentAttempt, mode: ReconcileMode): Promise<AttemptReconciliation> {
    return reconcileAttempt(this.context, attempt, mode);
  }

  /**
   * Reconciles this provider's attempts in `statuses` not updated for `olderThanMs` (at most `limit`, oldest
   * first, passing over the ids in `skip`), one after another as `reconcileAttempt` does; one outcome per attempt
   * asked. `reconcile` is this over `creating`/`unknown` in `create-answer` mode, plus the parked events.
   * @throws {InvalidOption} no or unknown statuses, `olderThanMs` not a non-negative integer, `limit` not a
   *   positive integer. @throws the database's error.
   */
  reconcileAttempts(options: ReconcileAttemptsOptions): Promise<AttemptReconciliation[]> {
    return reconcileAttempts(this.context, options);
  }

  /**
   * Moves an order forward inside the caller's transaction `trx` (e.g. `fulfilling`/`completed` from a
   * fulfilment job's effect), locking it first; returns the transition (`ignored` for a backward move, nothing
   * written). @throws {OrderNotFound} no such order.
   */
  advanceOrder(trx: Transaction<DB>, orderId: string, to: OrderStatus): Promise<Transition<OrderStatus>> {
    return advanceOrder(this.context, trx, orderId, to);
  }

  /** The order, or `null`. */
  findOrder(orderId: string): Promise<Order | null> {
    return findOrder(this.context, orderId);
  }

  /** Every attempt of the order, oldest first. */
  attemptsOf(orderId: string): Promise<PaymentAttempt[]> {
    return attemptsOf(this.context, orderId);
  }

  /**
   * The refunded amount recorded for the attempt, integer minor units of its currency: the largest cumulative
   * amount its applied `refunded` events reported (`ProviderPaymentEvent.refundedMinor`); 0 when none did (a
   * refund event without an amount refunds the order without recording one).
   * @throws the driver's error when the database fails.
   */
  refundedOf(attemptId: string): Promise<number> {
    return refundedOfAttempt(paymentsSql(this.context), attemptId);
  }

  /**
   * The journal of the order ("why is this order in this state?"): every decided report, oldest first, with the
   * parked reports that name the order (`orderRef`) while no attempt matches them (decision `parked`, `orderId`
   * still `null`): a payment for an order with no attempt of its provider shows on the order.
   */
  journalOf(orderId: string): Promise<JournalEntry[]> {
    return journalOf(this.context, orderId);
  }

  /**
   * Parked (unmatched) events, oldest first, at most `limit` (default 100) — for inspection; `reconcile` retries
   * only the ones an attempt now matches, whatever their age.
   */
  parkedEvents(limit = 100): Promise<JournalEntry[]> {
    return parkedEvents(this.context, limit);
  }
}

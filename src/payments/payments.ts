import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { type Clock, systemClock } from '../core/clock.js';
import { InvalidOption } from '../core/errors.js';
import { IdempotencyGuard } from '../core/idempotency-guard.js';
import { RequestKey } from '../core/request-key.js';
import { insertUnlessDuplicate } from '../outbox/insert-unless-duplicate.js';
import { Outbox } from '../outbox/outbox.js';
import { transaction } from '../outbox/sql-transaction.js';
import type { SqlStore } from '../stores/sql/sql-store.js';
import { type AppliedReport, applyReport } from './apply-report.js';
import { findActiveAttempt, locateAttempt, lockAttempt } from './attempt-rows.js';
import type { AttemptStatus } from './attempt-status.js';
import { insertJournal, parkedFor, parkedMatchable, reportOfEntry, resolveParked } from './event-journal.js';
import { InvalidPaymentEvent } from './invalid-payment-event.js';
import { type JournalEntry, type PaymentDecision, toJournalEntry } from './journal-entry.js';
import { checkMoney, type Money } from './money.js';
import { type Order, toOrder } from './order.js';
import { OrderNotFound } from './order-not-found.js';
import { OrderNotPayable } from './order-not-payable.js';
import { lockOrder, setOrderStatus } from './order-rows.js';
import { nextOrderStatus, type OrderStatus, PAID_ORDER_STATUSES } from './order-status.js';
import { ATTEMPT_KEY_PREFIX, type PaymentAttempt, toAttempt } from './payment-attempt.js';
import type { CreatePaymentRequest, PaymentProvider, ProviderPayment } from './payment-provider.js';
import type { PaymentReport } from './payment-report.js';
import { ATTEMPTS_TABLE, ORDERS_TABLE, PAYMENT_EVENTS_TABLE, type PaymentsDatabase } from './payments-tables.js';
import { ProviderDeclined } from './provider-declined.js';
import { PAYMENT_EVENT_STATUSES, type ProviderPaymentEvent } from './provider-payment-event.js';
import { isStoredId } from './stored-id.js';
import type { Transition } from './transition.js';

/** Something a human should look at, reported after the transaction committed. */
export interface PaymentAlert {
  readonly provider: string;
  readonly eventId: string;
  readonly attemptId: string | null;
  readonly orderId: string | null;
  readonly reason: string;
}

/** Options of {@link Payments}. */
export interface PaymentsOptions {
  /** The payment provider attempts are created with. */
  provider: PaymentProvider;
  /** Time source (epoch ms UTC). @default systemClock */
  clock?: Clock;
  /** Called after commit for every rejected report (mismatch) and anomaly; also kept in the journal. */
  onAlert?: (alert: PaymentAlert) => void;
}

/**
 * The answer of `openCheckout`: the order is already paid (nothing created), or THE active attempt — the one
 * this call created (`created: true`, after the provider answered) or the one another call created (`created:
 * false`, as stored now; it may still be `creating`).
 */
export type CheckoutResult =
  | { readonly kind: 'already-paid'; readonly order: Order }
  | { readonly kind: 'attempt'; readonly attempt: PaymentAttempt; readonly created: boolean };

/** The answer of `applyProviderEvent`: the decision; `duplicate` when this event id was already recorded. */
export interface EventResult {
  readonly decision: PaymentDecision;
  /** True when the event was recorded before: nothing ran now, `decision` is the first delivery's. */
  readonly duplicate: boolean;
  readonly reason: string | null;
  readonly attemptId: string | null;
  readonly orderId: string | null;
  /** True when this delivery made the order paid (never on a duplicate). */
  readonly becamePaid: boolean;
}

/** Options of `reconcile`. */
export interface ReconcileOptions {
  /** Only attempts in `creating`/`unknown` not updated for this long are asked about. @default 60_000 */
  olderThanMs?: number;
  /** At most this many attempts and this many parked events per run. @default 100 */
  limit?: number;
}

/** What one `reconcile` run did. */
export interface ReconcileReport {
  /** Attempts asked about. */
  readonly examined: number;
  /** Of those, how many left `creating`/`unknown`. */
  readonly resolved: number;
  /** Attempts whose look-up threw (left as they were). */
  readonly lookupErrors: number;
  /**
   * Attempts the provider did not know by merchant reference, whose create was re-sent with the attempt's same
   * idempotency key (see `reconcile`).
   */
  readonly resent: number;
  /** Of those, how many re-sends threw something other than `ProviderDeclined` (left as they were, retried next run). */
  readonly resendErrors: number;
  /** Parked inbox events matched to an attempt and decided. */
  readonly parkedMatched: number;
}

const UNRESOLVED: readonly AttemptStatus[] = ['creating', 'unknown'];

/**
 * Prefix of the provider part of the receipt `applyProviderEvent` records: `payments:<provider>` + event id. It
 * differs from the webhook intake's own receipt (`<provider>` + event id), so the intake may claim the delivery
 * with `guard.run` and call `applyProviderEvent` from its handler: the inner receipt commits with the business
 * transition, and a redelivery after a crash between the two finds it and changes nothing.
 */
export const PAYMENTS_RECEIPT_PREFIX = 'payments:';

/**
 * What the provider is asked to create for `attempt`: its stored idempotency key, the attempt id as merchant
 * reference and its money. The checkout and every reconciliation re-send build it here, so a retry always sends
 * the same key with the same parameters (a provider refuses a key reused with other parameters).
 */
function createRequestOf(attempt: PaymentAttempt): CreatePaymentRequest {
  return {
    idempotencyKey: attempt.idempotencyKey,
    merchantReference: attempt.id,
    orderId: attempt.orderId,
    amountMinor: attempt.amountMinor,
    currency: attempt.currency,
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Orders, payment attempts, checkout, provider events and reconciliation on one SQL store (SQLite, PostgreSQL,
 * MySQL/MariaDB; migrations `0002-payments` and `0003-outbox`), exactly-once in effect (SPEC §6):
 * - at most one active attempt per order (database-enforced), a new attempt (new id, new key) only after a
 *   confirmed `failed`/`cancelled`;
 * - no network call inside a transaction; the provider is called with the attempt's stored key;
 * - provider events applied in one transaction with their receipt, forward only, mismatches rejected;
 * - the first move to paid enqueues fulfilment once (outbox topic `order.fulfil`, dedupe `order:<orderId>`).
 * @see SPEC §6–7; seed 002 (`openCheckout`, `receiveWebhook`).
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
  private readonly clock: Clock;
  private readonly onAlert: (alert: PaymentAlert) => void;

  constructor(store: SqlStore<DB>, options: PaymentsOptions) {
    if (!options?.provider) throw new InvalidOption('provider', 'a PaymentProvider is required');
    this.store = store;
    this.provider = options.provider;
    this.clock = options.clock ?? systemClock;
    this.onAlert = options.onAlert ?? (() => {});
    this.outbox = new Outbox(store, { clock: this.clock });
    this.guard = new IdempotencyGuard(store, { clock: this.clock });
  }

  /**
   * Creates an order in `draft` for `principal`, with a random UUID id. With `trx` the row is written in the
   * caller's open transaction (e.g. the one-commit transaction of `POST /orders`, which also holds the request's
   * `Idempotency-Key` receipt), so the order and the receipt commit together.
   * @throws {InvalidMoney} amount not a positive integer of minor units, or currency not ISO-4217 upper case.
   * @throws {InvalidOption} empty principal or longer than 160 characters.
   */
  async createOrder(principal: string, money: Money, trx?: Transaction<DB>): Promise<Order> {
    const { amountMinor, currency } = checkMoney(money);
    if (typeof principal !== 'string' || principal.length === 0 || principal.length > 160) {
      throw new InvalidOption('principal', 'must be a non-empty string of at most 160 characters');
    }
    const now = this.clock.now();
    const row = {
      id: randomUUID(),
      principal,
      status: 'draft',
      amount_minor: amountMinor,
      currency,
      paid_attempt_id: null,
      created_at: now,
      updated_at: now,
    };
    const db = trx === undefined ? this.db() : (trx as unknown as Kysely<PaymentsDatabase>);
    await db.insertInto(ORDERS_TABLE).values(row).execute();
    return toOrder(row);
  }

  /**
   * Opens (or returns) the payment of an order, as SPEC §6 and seed 002 describe:
   * 1. one short transaction locks the order: paid → `already-paid`; an active attempt → that attempt
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
  async openCheckout(orderId: string, principal: string): Promise<CheckoutResult> {
    if (!isStoredId(orderId)) throw new OrderNotFound(String(orderId));
    const opened = await transaction(this.store, async (trx): Promise<CheckoutResult> => {
      const db = trx as unknown as Kysely<PaymentsDatabase>;
      const order = await lockOrder(db, this.store.dialect, orderId);
      if (!order || order.principal !== principal) throw new OrderNotFound(orderId);
      if (PAID_ORDER_STATUSES.includes(order.status)) return { kind: 'already-paid', order };
      if (order.status === 'cancelled' || order.status === 'refunded') throw new OrderNotPayable(orderId, order.status);
      const active = await findActiveAttempt(db, orderId);
      if (active) return { kind: 'attempt', attempt: active, created: false };
      const now = this.clock.now();
      const id = randomUUID();
      const row = {
        id,
        order_id: orderId,
        provider: this.provider.name,
        status: 'creating',
        amount_minor: order.amountMinor,
        currency: order.currency,
        idempotency_key: `${ATTEMPT_KEY_PREFIX}${id}`,
        provider_payment_id: null,
        action_url: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      };
      if (!(await insertUnlessDuplicate(this.store.dialect, db.insertInto(ATTEMPTS_TABLE).values(row)))) {
        const winner = await findActiveAttempt(db, orderId);
        if (!winner) throw new Error(`attempt insert for order ${orderId} conflicted, but no active attempt exists`);
        return { kind: 'attempt', attempt: winner, created: false };
      }
      if (nextOrderStatus(order.status, 'awaiting_payment').kind === 'move') {
        await setOrderStatus(db, orderId, 'awaiting_payment', now);
      }
      return { kind: 'attempt', attempt: toAttempt(row), created: true };
    });
    if (opened.kind === 'already-paid' || !opened.created) return opened;
    const { attempt } = opened;
    const base = {
      provider: attempt.provider,
      eventId: `checkout:${attempt.id}`,
      eventType: 'checkout.response',
      orderRef: null,
      occurredAtMs: null,
    };
    let report: PaymentReport;
    try {
      const payment = await this.provider.createPayment(createRequestOf(attempt));
      report = { ...base, ...this.fieldsOf(payment), error: null };
    } catch (error) {
      const status = error instanceof ProviderDeclined ? 'failed' : 'unknown';
      report = { ...base, ...this.emptyFields(attempt), status, error: errorText(error) };
    }
    const updated = await this.recordProviderAnswer(attempt, report);
    return { kind: 'attempt', attempt: updated, created: true };
  }

  /**
   * Applies one verified provider event in ONE transaction (SPEC §6, seed 002 `receiveWebhook`): records the
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
   * @throws {InvalidPaymentEvent} no receipt key, an unknown status, or neither payment id nor merchant reference.
   * @throws {InvalidRequestKey} the provider name is too long for the `payments:` receipt prefix (160 in all).
   * @throws {RequestInProgress} / {StoreUnavailable} from the guard (nothing committed; the provider retries).
   */
  async applyProviderEvent(event: ProviderPaymentEvent): Promise<EventResult> {
    const key = event.key;
    if (key === null) throw new InvalidPaymentEvent('no receipt key (read-only query): answer it from current state');
    if (!PAYMENT_EVENT_STATUSES.includes(event.status)) throw new InvalidPaymentEvent(`unknown status ${event.status}`);
    if (event.paymentId === null && event.merchantReference === null) {
      throw new InvalidPaymentEvent('neither a payment id nor a merchant reference: cannot be matched to an attempt');
    }
    const report: PaymentReport = {
      provider: key.provider,
      eventId: key.externalId,
      eventType: event.eventType,
      status: event.status,
      paymentId: event.paymentId,
      amountMinor: event.amountMinor,
      currency: event.currency,
      merchantReference: event.merchantReference,
      orderRef: event.orderId ?? null,
      occurredAtMs: event.occurredAtMs,
      actionUrl: null,
      error: null,
    };
    const receiptKey = new RequestKey(`${PAYMENTS_RECEIPT_PREFIX}${key.provider}`, key.externalId);
    let alerts: PaymentAlert[] = [];
    const outcome = await transaction(this.store, (trx) => {
      alerts = [];
      return this.guard.runInTransaction(trx, receiptKey, async (tx) => {
        const result = await this.applyEventInTransaction(tx, event.provider, report, alerts);
        return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result) };
      });
    });
    const stored = JSON.parse(new TextDecoder().decode(outcome.response.body)) as Omit<EventResult, 'duplicate'>;
    if (outcome.isReplay) return Object.freeze({ ...stored, duplicate: true, becamePaid: false });
    for (const alert of alerts) this.onAlert(alert);
    return Object.freeze({ ...stored, duplicate: false });
  }

  /**
   * The reconciliation job (SPEC §6): every attempt of this provider in `creating` or `unknown` not updated for
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
   * @see SPEC §6 ("a timeout is unknown, never failed"); https://docs.stripe.com/api/idempotent_requests (a retry
   * with the same key returns the first result, 409 while the first request is still being processed).
   * @throws {InvalidOption} `olderThanMs` not a non-negative integer, `limit` not a positive integer.
   */
  async reconcile(options: ReconcileOptions = {}): Promise<ReconcileReport> {
    const olderThanMs = options.olderThanMs ?? 60_000;
    const limit = options.limit ?? 100;
    if (!Number.isSafeInteger(olderThanMs) || olderThanMs < 0) {
      throw new InvalidOption('olderThanMs', 'must be a non-negative integer');
    }
    if (!Number.isSafeInteger(limit) || limit <= 0) throw new InvalidOption('limit', 'must be a positive integer');
    const stale = await this.db()
      .selectFrom(ATTEMPTS_TABLE)
      .selectAll()
      .where('provider', '=', this.provider.name)
      .where('status', 'in', [...UNRESOLVED])
      .where('updated_at', '<=', this.clock.now() - olderThanMs)
      .orderBy('updated_at')
      .limit(limit)
      .execute();
    let resolved = 0;
    let lookupErrors = 0;
    let resent = 0;
    let resendErrors = 0;
    for (const attempt of stale.map(toAttempt)) {
      let payment: ProviderPayment | null;
      try {
        payment = await this.provider.getPaymentByReference(attempt.id);
      } catch {
        lookupErrors++;
        continue;
      }
      const base = {
        provider: attempt.provider,
        eventId: `reconcile:${attempt.id}:${randomUUID()}`,
        eventType: 'reconciliation',
        orderRef: null,
        occurredAtMs: null,
        error: null,
      };
      let report: PaymentReport;
      if (payment !== null) {
        report = { ...base, ...this.fieldsOf(payment) };
      } else {
        resent++;
        const answer = await this.resendCreate(attempt);
        if (answer === null) {
          resendErrors++;
          continue;
        }
        report = { ...base, eventType: 'reconciliation.resend', ...answer };
      }
      const updated = await this.recordProviderAnswer(attempt, report);
      if (!UNRESOLVED.includes(updated.status)) resolved++;
    }
    const parkedMatched = await this.matchParked(limit);
    return Object.freeze({ examined: stale.length, resolved, lookupErrors, resent, resendErrors, parkedMatched });
  }

  /**
   * Re-sends the create of an unresolved attempt with its stored idempotency key and the same parameters: the
   * provider's payment fields, `failed` with the refusal on `ProviderDeclined`, or `null` when the answer is
   * still unknown (any other error).
   */
  private async resendCreate(attempt: PaymentAttempt) {
    try {
      const payment = await this.provider.createPayment(createRequestOf(attempt));
      return { ...this.fieldsOf(payment), error: null };
    } catch (error) {
      if (!(error instanceof ProviderDeclined)) return null;
      return { ...this.emptyFields(attempt), status: 'failed' as const, error: errorText(error) };
    }
  }

  /**
   * Moves an order forward inside the caller's transaction `trx` (e.g. `fulfilling`/`completed` from a
   * fulfilment job's effect), locking it first; returns the transition (`ignored` for a backward move, nothing
   * written). @throws {OrderNotFound} no such order.
   */
  async advanceOrder(trx: Transaction<DB>, orderId: string, to: OrderStatus): Promise<Transition<OrderStatus>> {
    if (!isStoredId(orderId)) throw new OrderNotFound(String(orderId));
    const db = trx as unknown as Kysely<PaymentsDatabase>;
    const order = await lockOrder(db, this.store.dialect, orderId);
    if (!order) throw new OrderNotFound(orderId);
    const move = nextOrderStatus(order.status, to);
    if (move.kind === 'move') await setOrderStatus(db, orderId, to, this.clock.now());
    return move;
  }

  /** The order, or `null`. */
  async findOrder(orderId: string): Promise<Order | null> {
    if (!isStoredId(orderId)) return null;
    const row = await this.db().selectFrom(ORDERS_TABLE).selectAll().where('id', '=', orderId).executeTakeFirst();
    return row ? toOrder(row) : null;
  }

  /** Every attempt of the order, oldest first. */
  async attemptsOf(orderId: string): Promise<PaymentAttempt[]> {
    if (!isStoredId(orderId)) return [];
    const rows = await this.db()
      .selectFrom(ATTEMPTS_TABLE)
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toAttempt);
  }

  /** The journal of the order ("why is this order in this state?"): every decided report, oldest first. */
  async journalOf(orderId: string): Promise<JournalEntry[]> {
    if (!isStoredId(orderId)) return [];
    const rows = await this.db()
      .selectFrom(PAYMENT_EVENTS_TABLE)
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('received_at')
      .execute();
    return rows.map(toJournalEntry);
  }

  /**
   * Parked (unmatched) events, oldest first, at most `limit` (default 100) — for inspection; `reconcile` retries
   * only the ones an attempt now matches, whatever their age.
   */
  async parkedEvents(limit = 100): Promise<JournalEntry[]> {
    const rows = await this.db()
      .selectFrom(PAYMENT_EVENTS_TABLE)
      .selectAll()
      .where('decision', '=', 'parked')
      .orderBy('received_at')
      .limit(limit)
      .execute();
    return rows.map(toJournalEntry);
  }

  private db(): Kysely<PaymentsDatabase> {
    return this.store.db as unknown as Kysely<PaymentsDatabase>;
  }

  private fieldsOf(payment: ProviderPayment) {
    return {
      status: payment.status,
      paymentId: payment.paymentId,
      amountMinor: payment.amountMinor,
      currency: payment.currency,
      merchantReference: payment.merchantReference,
      actionUrl: payment.actionUrl,
    };
  }

  private emptyFields(attempt: PaymentAttempt) {
    return { paymentId: null, amountMinor: null, currency: null, merchantReference: attempt.id, actionUrl: null };
  }

  /** Event body of `applyProviderEvent`, inside the receipt's transaction. */
  private async applyEventInTransaction(
    trx: Transaction<DB>,
    provider: string,
    report: PaymentReport,
    alerts: PaymentAlert[],
  ): Promise<Omit<EventResult, 'duplicate'>> {
    const db = trx as unknown as Kysely<PaymentsDatabase>;
    const now = this.clock.now();
    const found = await locateAttempt(db, provider, report.paymentId, report.merchantReference);
    if (!found) {
      const decision = {
        decision: 'parked',
        reason: 'no attempt matches yet',
        attemptId: null,
        orderId: null,
      } as const;
      await insertJournal(db, report, decision, now);
      return { ...decision, becamePaid: false };
    }
    const applied = await this.applyLocked(trx, found, report, now);
    await insertJournal(db, report, applied, now);
    if (applied.alert) alerts.push(this.alertOf(report, applied));
    if (applied.decision === 'applied') await this.drainInbox(trx, found.id, now, alerts);
    const { decision, reason, attemptId, orderId, becamePaid } = applied;
    return { decision, reason, attemptId, orderId, becamePaid };
  }

  /** Locks the attempt's order, then the attempt, and applies `report`. */
  private async applyLocked(
    trx: Transaction<DB>,
    attempt: PaymentAttempt,
    report: PaymentReport,
    nowMs: number,
  ): Promise<AppliedReport> {
    const db = trx as unknown as Kysely<PaymentsDatabase>;
    const order = await lockOrder(db, this.store.dialect, attempt.orderId);
    const locked = await lockAttempt(db, this.store.dialect, attempt.id);
    if (!order || !locked) throw new Error(`attempt ${attempt.id} or its order vanished`);
    return applyReport({ trx, outbox: this.outbox, nowMs }, order, locked, report);
  }

  /** Records a provider answer (checkout response or reconciliation) in one transaction; returns the attempt. */
  private async recordProviderAnswer(attempt: PaymentAttempt, report: PaymentReport): Promise<PaymentAttempt> {
    let alerts: PaymentAlert[] = [];
    const updated = await transaction(this.store, async (trx) => {
      alerts = [];
      const db = trx as unknown as Kysely<PaymentsDatabase>;
      const now = this.clock.now();
      const applied = await this.applyLocked(trx, attempt, report, now);
      await insertJournal(db, report, applied, now);
      if (applied.alert) alerts.push(this.alertOf(report, applied));
      await this.drainInbox(trx, attempt.id, now, alerts);
      const row = await lockAttempt(db, this.store.dialect, attempt.id);
      if (!row) throw new Error(`attempt ${attempt.id} vanished`);
      return row;
    });
    for (const alert of alerts) this.onAlert(alert);
    return updated;
  }

  /**
   * Applies the parked events that name this attempt (by payment id or merchant reference), oldest first, and
   * again while a pass decided any: a refund parked because it overtook its success stays parked in a pass that
   * comes before the success, and is applied by the next one.
   */
  private async drainInbox(trx: Transaction<DB>, attemptId: string, nowMs: number, alerts: PaymentAlert[]) {
    const db = trx as unknown as Kysely<PaymentsDatabase>;
    let decided = true;
    while (decided) {
      decided = false;
      const current = await lockAttempt(db, this.store.dialect, attemptId);
      if (!current) return;
      for (const entry of await parkedFor(db, current)) {
        const fresh = await lockAttempt(db, this.store.dialect, attemptId);
        if (!fresh) return;
        const report = reportOfEntry(entry);
        const applied = await this.applyLocked(trx, fresh, report, nowMs);
        if (applied.decision === 'parked') continue;
        await resolveParked(db, entry.provider, entry.eventId, applied, nowMs);
        if (applied.alert) alerts.push(this.alertOf(report, applied));
        decided = true;
      }
    }
  }

  /**
   * Matches parked events whose attempt can now be found (selected by the database, see `parkedMatchable`, so
   * unmatchable rows never take the `limit`); returns how many were decided.
   */
  private async matchParked(limit: number): Promise<number> {
    let matched = 0;
    for (const entry of await parkedMatchable(this.db(), limit)) {
      const attempt = await locateAttempt(this.db(), entry.provider, entry.providerPaymentId, entry.merchantReference);
      if (!attempt) continue;
      let alerts: PaymentAlert[] = [];
      const decided = await transaction(this.store, async (trx) => {
        alerts = [];
        const db = trx as unknown as Kysely<PaymentsDatabase>;
        await lockOrder(db, this.store.dialect, attempt.orderId);
        const still = await db
          .selectFrom(PAYMENT_EVENTS_TABLE)
          .select('decision')
          .where('provider', '=', entry.provider)
          .where('event_id', '=', entry.eventId)
          .executeTakeFirst();
        if (still?.decision !== 'parked') return false;
        const now = this.clock.now();
        const report = reportOfEntry(entry);
        const applied = await this.applyLocked(trx, attempt, report, now);
        if (applied.decision === 'parked') return false;
        await resolveParked(db, entry.provider, entry.eventId, applied, now);
        if (applied.alert) alerts.push(this.alertOf(report, applied));
        if (applied.decision === 'applied') await this.drainInbox(trx, attempt.id, now, alerts);
        return true;
      });
      for (const alert of alerts) this.onAlert(alert);
      if (decided) matched++;
    }
    return matched;
  }

  private alertOf(report: PaymentReport, applied: AppliedReport): PaymentAlert {
    return Object.freeze({
      provider: report.provider,
      eventId: report.eventId,
      attemptId: applied.attemptId,
      orderId: applied.orderId,
      reason: applied.reason ?? applied.decision,
    });
  }
}

import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { OutboxWorker } from '../../packages/payonce/src/outbox/outbox-worker.js';
import {
  FULFIL_TOPIC,
  REFUND_TOPIC,
  REFUND_WAITS_FOR_SUCCESS,
} from '../../packages/payonce/src/payments/apply-report.js';
import { insertJournal } from '../../packages/payonce/src/payments/event-journal.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { InvalidPaymentEvent } from '../../packages/payonce/src/payments/invalid-payment-event.js';
import type { Order } from '../../packages/payonce/src/payments/order.js';
import { OrderNotFound } from '../../packages/payonce/src/payments/order-not-found.js';
import type { PaymentAttempt } from '../../packages/payonce/src/payments/payment-attempt.js';
import type { CreatePaymentRequest, ProviderPayment } from '../../packages/payonce/src/payments/payment-provider.js';
import { type CheckoutResult, type PaymentAlert, Payments } from '../../packages/payonce/src/payments/payments.js';
import { ATTEMPTS_TABLE, type PaymentsDatabase } from '../../packages/payonce/src/payments/payments-tables.js';
import { isDuplicateKeyError } from '../../packages/payonce/src/stores/sql/driver-error.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import { eventAbout, eventId } from './payments-fixtures.js';

function attemptOf(result: CheckoutResult): PaymentAttempt {
  if (result.kind !== 'attempt') throw new Error(`expected an attempt, got ${result.kind}`);
  return result.attempt;
}

for (const dialect of sqlDialectsFromEnv()) {
  describe(`${dialect}: payments`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let outbox: Outbox<unknown>;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      outbox = new Outbox(store);
    });
    afterAll(async () => {
      await backend?.drop();
    });

    function setup(options: { provider?: InMemoryPaymentProvider; clock?: ManualClock } = {}) {
      const provider = options.provider ?? new InMemoryPaymentProvider({ createDelayMs: 20 });
      const alerts: PaymentAlert[] = [];
      const payments = new Payments(store, {
        provider,
        onAlert: (alert) => alerts.push(alert),
        ...(options.clock ? { clock: options.clock } : {}),
      });
      return { provider, payments, alerts };
    }

    async function newOrder(payments: Payments<unknown>): Promise<Order> {
      return payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
    }

    async function fulfilJobs(order: Order) {
      return (await outbox.find(FULFIL_TOPIC, `order:${order.id}`)) === null ? 0 : 1;
    }

    it('the database itself refuses a second active attempt for one order (and allows it after a terminal one)', async () => {
      const { payments } = setup();
      const order = await newOrder(payments);
      const db = store.db as unknown as Kysely<PaymentsDatabase>;
      const row = (id: string, status: string) => ({
        id,
        order_id: order.id,
        provider: 'direct-insert',
        status,
        amount_minor: 1999,
        currency: 'EUR',
        idempotency_key: `payment-attempt:${id}`,
        provider_payment_id: null,
        action_url: null,
        last_error: null,
        created_at: 1,
        updated_at: 1,
      });
      await db
        .insertInto(ATTEMPTS_TABLE)
        .values(row(`${order.id}-a`, 'failed'))
        .execute();
      await db
        .insertInto(ATTEMPTS_TABLE)
        .values(row(`${order.id}-b`, 'unknown'))
        .execute();
      for (const status of ['creating', 'pending', 'requires_action', 'unknown']) {
        const error = await db
          .insertInto(ATTEMPTS_TABLE)
          .values(row(`${order.id}-${status}`, status))
          .execute()
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(isDuplicateKeyError(error), status).toBe(true);
      }
      await db
        .insertInto(ATTEMPTS_TABLE)
        .values(row(`${order.id}-c`, 'cancelled'))
        .execute();
      expect(await payments.attemptsOf(order.id)).toHaveLength(3);
    });

    describe('openCheckout', () => {
      it('10 parallel calls for one order: one attempt, one provider create call, every caller sees it', async () => {
        const { provider, payments } = setup();
        const order = await newOrder(payments);
        const results = await Promise.all(Array.from({ length: 10 }, () => payments.openCheckout(order.id, 'alice')));
        const ids = new Set(results.map((r) => attemptOf(r).id));
        expect(ids.size).toBe(1);
        const [id] = [...ids];
        expect(results.filter((r) => r.kind === 'attempt' && r.created)).toHaveLength(1);
        expect(provider.createCalls).toEqual([
          {
            idempotencyKey: `payment-attempt:${id}`,
            merchantReference: id,
            orderId: order.id,
            amountMinor: 1999,
            currency: 'EUR',
          },
        ]);
        const attempts = await payments.attemptsOf(order.id);
        expect(attempts).toHaveLength(1);
        expect(attempts[0]).toMatchObject({ status: 'pending', idempotencyKey: `payment-attempt:${id}` });
        expect(attempts[0]?.providerPaymentId).toMatch(/^pay_/);
        const stored = await payments.findOrder(order.id);
        expect(stored?.status).toBe('awaiting_payment');
        // The creating call answers the order as its transaction wrote it (awaiting_payment), not read again.
        expect(results.find((r) => r.kind === 'attempt' && r.created)).toMatchObject({ order: stored });
        const again = await payments.openCheckout(order.id, 'alice');
        expect(again).toMatchObject({ kind: 'attempt', created: false, attempt: { id, status: 'pending' } });
        expect(again).toMatchObject({ order: stored });
        expect(provider.createCalls).toHaveLength(1);
      });

      it('another principal cannot open (or learn about) the order', async () => {
        const { payments } = setup();
        const order = await newOrder(payments);
        await expect(payments.openCheckout(order.id, 'mallory')).rejects.toBeInstanceOf(OrderNotFound);
        await expect(payments.openCheckout('no-such-order', 'alice')).rejects.toBeInstanceOf(OrderNotFound);
        await expect(payments.openCheckout('заказ-№1 ✓', 'alice')).rejects.toBeInstanceOf(OrderNotFound);
        expect(await payments.attemptsOf(order.id)).toEqual([]);
        const stray = await payments.applyProviderEvent({
          provider: 'fake',
          key: new RequestKey('fake', eventId('stray')),
          eventType: 'payment.succeeded',
          status: 'succeeded',
          paymentId: 'платёж-✓',
          amountMinor: 1999,
          currency: 'EUR',
          merchantReference: 'ссылка-✓',
          occurredAtMs: null,
        });
        expect(stray).toMatchObject({ decision: 'parked', attemptId: null, duplicate: false });
      });

      it('after a definitive decline exactly one new attempt (new id, new key) can open', async () => {
        const { provider, payments } = setup();
        const order = await newOrder(payments);
        provider.failNextCreate('decline');
        const declined = attemptOf(await payments.openCheckout(order.id, 'alice'));
        expect(declined.status).toBe('failed');
        expect(declined.lastError).toContain('card_declined');
        const results = await Promise.all(Array.from({ length: 10 }, () => payments.openCheckout(order.id, 'alice')));
        const ids = new Set(results.map((r) => attemptOf(r).id));
        expect(ids.size).toBe(1);
        const [next] = await Promise.all([...ids]);
        expect(next).not.toBe(declined.id);
        expect(provider.createCalls.map((c) => c.idempotencyKey)).toEqual([
          `payment-attempt:${declined.id}`,
          `payment-attempt:${next}`,
        ]);
        const attempts = await payments.attemptsOf(order.id);
        expect(attempts.map((a) => a.status).sort()).toEqual(['failed', 'pending']);
      });

      it('after success, checkout answers "already paid" and calls no provider', async () => {
        const { provider, payments } = setup();
        const order = await newOrder(payments);
        const attempt = attemptOf(await payments.openCheckout(order.id, 'alice'));
        const result = await payments.applyProviderEvent(eventAbout(attempt));
        expect(result).toMatchObject({ decision: 'applied', duplicate: false, becamePaid: true });
        const paid = await payments.openCheckout(order.id, 'alice');
        expect(paid.kind).toBe('already-paid');
        if (paid.kind === 'already-paid')
          expect(paid).toMatchObject({
            order: { status: 'paid', paidAttemptId: attempt.id },
            paidAttempt: { id: attempt.id, status: 'succeeded' },
          });
        expect(provider.createCalls).toHaveLength(1);
        expect(await fulfilJobs(order)).toBe(1);
      });

      it.each([
        ['did', 'timeout-after-create' as const],
        ['did not', 'timeout-before-create' as const],
      ])(
        'a timed-out create (provider %s create the payment) → unknown, blocks new attempts until reconciled',
        async (did, fault) => {
          const clock = new ManualClock(Date.now());
          const provider = new InMemoryPaymentProvider({ initialStatus: 'succeeded' });
          const { payments } = setup({ provider, clock });
          const order = await newOrder(payments);
          provider.failNextCreate(fault);
          const unknown = attemptOf(await payments.openCheckout(order.id, 'alice'));
          expect(unknown.status).toBe('unknown');
          expect(unknown.lastError).toContain('timed out');
          const blocked = await payments.openCheckout(order.id, 'alice');
          expect(blocked).toMatchObject({
            kind: 'attempt',
            created: false,
            attempt: { id: unknown.id, status: 'unknown' },
          });
          expect(provider.createCalls).toHaveLength(1);

          expect(await payments.reconcile({ olderThanMs: 60_000 })).toMatchObject({ examined: 0, resolved: 0 });
          clock.advance(60_000);
          expect(await payments.reconcile({ olderThanMs: 60_000 })).toMatchObject({ examined: 1, resolved: 1 });
          const [resolved] = await payments.attemptsOf(order.id);
          if (did === 'did') {
            expect(resolved).toMatchObject({ id: unknown.id, status: 'succeeded' });
            expect(resolved?.providerPaymentId).toBe(provider.paymentFor(unknown.id)?.paymentId);
            expect((await payments.openCheckout(order.id, 'alice')).kind).toBe('already-paid');
            expect(await fulfilJobs(order)).toBe(1);
            expect(provider.createCalls).toHaveLength(1);
          } else {
            // "not found" is no confirmation: the create is re-sent with the SAME key, the provider creates it now.
            expect(resolved).toMatchObject({ id: unknown.id, status: 'succeeded' });
            expect(resolved?.providerPaymentId).toBe(provider.paymentFor(unknown.id)?.paymentId);
            expect(provider.createCalls.map((c) => c.idempotencyKey)).toEqual([
              unknown.idempotencyKey,
              unknown.idempotencyKey,
            ]);
            expect(await payments.attemptsOf(order.id)).toHaveLength(1);
            expect((await payments.findOrder(order.id))?.paidAttemptId).toBe(unknown.id);
            expect((await payments.openCheckout(order.id, 'alice')).kind).toBe('already-paid');
            expect(await fulfilJobs(order)).toBe(1);
          }
          const journal = await payments.journalOf(order.id);
          expect(journal.map((e) => e.eventType)).toContain(did === 'did' ? 'reconciliation' : 'reconciliation.resend');
        },
      );
    });

    describe('applyProviderEvent', () => {
      async function pendingAttempt(payments: Payments<unknown>) {
        const order = await newOrder(payments);
        const attempt = attemptOf(await payments.openCheckout(order.id, 'alice'));
        return { order, attempt };
      }

      it('the same event 5× in a row and 5× in parallel: one transition, one fulfilment, the job runs once', async () => {
        const { payments } = setup();
        const { order, attempt } = await pendingAttempt(payments);
        const event = eventAbout(attempt, { id: eventId('dup') });
        const sequential = [];
        for (let i = 0; i < 5; i++) sequential.push(await payments.applyProviderEvent(event));
        const parallel = await Promise.all(Array.from({ length: 5 }, () => payments.applyProviderEvent(event)));
        const all = [...sequential, ...parallel];
        expect(all.filter((r) => !r.duplicate)).toHaveLength(1);
        expect(all.filter((r) => r.becamePaid)).toHaveLength(1);
        expect(all.every((r) => r.decision === 'applied' && r.attemptId === attempt.id)).toBe(true);
        expect((await payments.journalOf(order.id)).filter((e) => e.eventId === event.key?.externalId)).toHaveLength(1);
        expect(await fulfilJobs(order)).toBe(1);

        let fulfilments = 0;
        const worker = new OutboxWorker(store, {
          [FULFIL_TOPIC]: async (job, ctx) => {
            const { orderId } = job.payload as { orderId: string };
            await ctx.once(`fulfil:${orderId}`, async (trx) => {
              if (orderId === order.id) fulfilments++;
              await payments.advanceOrder(trx, orderId, 'fulfilling');
              await payments.advanceOrder(trx, orderId, 'completed');
            });
          },
        });
        await worker.drain();
        expect(fulfilments).toBe(1);
        expect((await payments.findOrder(order.id))?.status).toBe('completed');
        expect((await payments.applyProviderEvent(event)).duplicate).toBe(true);
        expect((await payments.findOrder(order.id))?.status).toBe('completed');
      });

      it('called from a webhook intake handler that claimed the same event id: applies once, replays after', async () => {
        const { payments } = setup();
        const { order, attempt } = await pendingAttempt(payments);
        const event = eventAbout(attempt);
        const intake = new IdempotencyGuard(store);
        const deliver = () =>
          intake.run(event.key!, async () => {
            const result = await payments.applyProviderEvent(event);
            return { body: `${result.decision}:${result.becamePaid}` };
          });
        const first = await deliver();
        const second = await deliver();
        expect(new TextDecoder().decode(first.response.body)).toBe('applied:true');
        expect(second.isReplay).toBe(true);
        expect((await payments.applyProviderEvent(event)).duplicate).toBe(true);
        expect(await fulfilJobs(order)).toBe(1);
      });

      it('two different event ids about one payment: one transition', async () => {
        const { payments } = setup();
        const { order, attempt } = await pendingAttempt(payments);
        const first = await payments.applyProviderEvent(eventAbout(attempt, { eventType: 'payment_intent.succeeded' }));
        const second = await payments.applyProviderEvent(
          eventAbout(attempt, { eventType: 'charge.succeeded', merchantReference: null }),
        );
        expect(first).toMatchObject({ decision: 'applied', becamePaid: true, duplicate: false });
        expect(second).toMatchObject({ decision: 'unchanged', becamePaid: false, duplicate: false });
        expect(second.reason).toContain('already succeeded');
        expect(await fulfilJobs(order)).toBe(1);
        expect((await payments.findOrder(order.id))?.status).toBe('paid');
      });

      it.each([
        ['amount', { amountMinor: 1 }, 'amount 1 differs'],
        ['currency', { currency: 'USD' }, 'currency USD differs'],
        ['order', { orderId: 'someone-elses-order' }, 'order differs'],
        ['merchant reference', { merchantReference: 'another-attempt' }, 'merchant reference'],
        ['payment id', { paymentId: 'pay_foreign' }, 'payment id differs'],
      ])('a %s mismatch is rejected, journaled and alerted, with no state change', async (_what, change, reason) => {
        const { payments, alerts } = setup();
        const { order, attempt } = await pendingAttempt(payments);
        const fresh = (await payments.attemptsOf(order.id))[0]!;
        const result = await payments.applyProviderEvent(eventAbout(fresh, change));
        expect(result).toMatchObject({ decision: 'rejected', becamePaid: false, attemptId: attempt.id });
        expect(result.reason).toContain(reason);
        expect(alerts).toHaveLength(1);
        expect(alerts[0]?.reason).toContain(reason);
        expect((await payments.attemptsOf(order.id))[0]?.status).toBe('pending');
        expect((await payments.findOrder(order.id))?.status).toBe('awaiting_payment');
        expect(await fulfilJobs(order)).toBe(0);
        const rejected = (await payments.journalOf(order.id)).filter((e) => e.decision === 'rejected');
        expect(rejected).toHaveLength(1);
        const ok = await payments.applyProviderEvent(eventAbout(fresh));
        expect(ok).toMatchObject({ decision: 'applied', becamePaid: true });
      });

      it('an event before the checkout response is matched by merchant reference; the late response changes nothing', async () => {
        const inner = new InMemoryPaymentProvider();
        let early: Awaited<ReturnType<Payments<unknown>['applyProviderEvent']>> | null = null;
        let payments: Payments<unknown>;
        const racing = {
          name: inner.name,
          async createPayment(request: CreatePaymentRequest): Promise<ProviderPayment> {
            const payment = await inner.createPayment(request);
            const attempt = (await payments.attemptsOf(request.orderId))[0]!;
            early = await payments.applyProviderEvent(
              eventAbout(attempt, { paymentId: payment.paymentId, merchantReference: request.merchantReference }),
            );
            return payment;
          },
          getPaymentByReference: (ref: string) => inner.getPaymentByReference(ref),
          cancel: (id: string) => inner.cancel(id),
        };
        payments = new Payments(store, { provider: racing });
        const order = await newOrder(payments);
        const attempt = attemptOf(await payments.openCheckout(order.id, 'alice'));
        expect(early).toMatchObject({ decision: 'applied', becamePaid: true });
        expect(attempt.status).toBe('succeeded');
        expect(attempt.providerPaymentId).toBe(inner.paymentFor(attempt.id)?.paymentId);
        const journal = await payments.journalOf(order.id);
        expect(journal.find((e) => e.eventType === 'checkout.response')).toMatchObject({
          status: 'pending',
          decision: 'unchanged',
        });
        expect(await fulfilJobs(order)).toBe(1);
      });

      it('an early event with only a payment id is parked in the inbox and applied when the response is saved', async () => {
        const inner = new InMemoryPaymentProvider();
        let early: Awaited<ReturnType<Payments<unknown>['applyProviderEvent']>> | null = null;
        let payments: Payments<unknown>;
        const racing = {
          name: inner.name,
          async createPayment(request: CreatePaymentRequest): Promise<ProviderPayment> {
            const payment = await inner.createPayment(request);
            const attempt = (await payments.attemptsOf(request.orderId))[0]!;
            early = await payments.applyProviderEvent(
              eventAbout(attempt, { paymentId: payment.paymentId, merchantReference: null }),
            );
            return payment;
          },
          getPaymentByReference: (ref: string) => inner.getPaymentByReference(ref),
          cancel: (id: string) => inner.cancel(id),
        };
        payments = new Payments(store, { provider: racing });
        const order = await newOrder(payments);
        const result = await payments.openCheckout(order.id, 'alice');
        const attempt = attemptOf(result);
        expect(early).toMatchObject({ decision: 'parked', becamePaid: false });
        expect(attempt.status).toBe('succeeded');
        expect(attempt).toEqual((await payments.attemptsOf(order.id))[0]);
        expect(result.kind === 'attempt' && result.order).toMatchObject({ status: 'paid', paidAttemptId: attempt.id });
        expect(result.kind === 'attempt' && result.order).toEqual(await payments.findOrder(order.id));
        expect((await payments.findOrder(order.id))?.status).toBe('paid');
        const parked = (await payments.journalOf(order.id)).find((e) => e.eventType === 'payment.succeeded');
        expect(parked).toMatchObject({ decision: 'applied', attemptId: attempt.id });
        expect(parked?.resolvedAtMs).not.toBeNull();
        expect(await fulfilJobs(order)).toBe(1);
        expect(
          (await payments.parkedEvents()).filter((e) => e.providerPaymentId === attempt.providerPaymentId),
        ).toEqual([]);
      });

      it('an event about a payment whose id only reconciliation learns is parked, then applied by reconcile', async () => {
        const clock = new ManualClock(Date.now());
        const { provider, payments } = setup({ clock });
        const order = await newOrder(payments);
        provider.failNextCreate('timeout-after-create');
        const unknown = attemptOf(await payments.openCheckout(order.id, 'alice'));
        expect(unknown).toMatchObject({ status: 'unknown', providerPaymentId: null });
        const paymentId = provider.paymentFor(unknown.id)!.paymentId;
        const early = await payments.applyProviderEvent(eventAbout(unknown, { paymentId, merchantReference: null }));
        expect(early).toMatchObject({ decision: 'parked', becamePaid: false });
        expect((await payments.findOrder(order.id))?.status).toBe('awaiting_payment');
        clock.advance(60_000);
        const report = await payments.reconcile({ olderThanMs: 60_000 });
        expect(report).toMatchObject({ resolved: 1, lookupErrors: 0 });
        expect((await payments.attemptsOf(order.id))[0]).toMatchObject({
          status: 'succeeded',
          providerPaymentId: paymentId,
        });
        expect((await payments.findOrder(order.id))?.status).toBe('paid');
        expect(await fulfilJobs(order)).toBe(1);
      });

      it('reconcile also matches a parked event that missed the drain (it committed after the attempt learnt its id)', async () => {
        const { payments } = setup();
        const { order } = await pendingAttempt(payments);
        const attempt = (await payments.attemptsOf(order.id))[0]!;
        const db = { db: store.db as unknown as Kysely<PaymentsDatabase>, statements: store.statements };
        const id = eventId('raced');
        await insertJournal(
          db,
          {
            provider: 'fake',
            eventId: id,
            eventType: 'payment.succeeded',
            status: 'succeeded',
            paymentId: attempt.providerPaymentId,
            amountMinor: 1999,
            currency: 'EUR',
            merchantReference: null,
            orderRef: null,
            occurredAtMs: null,
            actionUrl: null,
            error: null,
          },
          { decision: 'parked', reason: 'no attempt matches yet', attemptId: null, orderId: null },
          Date.now(),
        );
        const report = await payments.reconcile({ olderThanMs: 60_000 });
        expect(report.parkedMatched).toBeGreaterThanOrEqual(1);
        expect((await payments.findOrder(order.id))?.status).toBe('paid');
        expect((await payments.journalOf(order.id)).find((e) => e.eventId === id)).toMatchObject({
          decision: 'applied',
        });
        expect((await payments.reconcile({ olderThanMs: 60_000 })).parkedMatched).toBe(0);
        expect(await fulfilJobs(order)).toBe(1);
      });

      it('a late "pending" after "succeeded" changes nothing', async () => {
        const { payments } = setup();
        const { order, attempt } = await pendingAttempt(payments);
        const fresh = (await payments.attemptsOf(order.id))[0]!;
        await payments.applyProviderEvent(eventAbout(fresh));
        const late = await payments.applyProviderEvent(
          eventAbout(fresh, { status: 'pending', eventType: 'payment.pending', amountMinor: null, currency: null }),
        );
        expect(late).toMatchObject({ decision: 'unchanged', becamePaid: false });
        expect(late.reason).toContain('succeeded → pending');
        expect((await payments.attemptsOf(order.id))[0]).toMatchObject({ id: attempt.id, status: 'succeeded' });
        expect((await payments.findOrder(order.id))?.status).toBe('paid');
        expect(await fulfilJobs(order)).toBe(1);
      });

      it('"paid" then "refunded" on one payment both apply, each once', async () => {
        const { payments } = setup();
        const { order } = await pendingAttempt(payments);
        const fresh = (await payments.attemptsOf(order.id))[0]!;
        expect(await payments.applyProviderEvent(eventAbout(fresh))).toMatchObject({ decision: 'applied' });
        const refund = eventAbout(fresh, { status: 'refunded', eventType: 'charge.refunded' });
        expect(await payments.applyProviderEvent(refund)).toMatchObject({ decision: 'applied', becamePaid: false });
        expect(await payments.applyProviderEvent(refund)).toMatchObject({ decision: 'applied', duplicate: true });
        const second = await payments.applyProviderEvent(eventAbout(fresh, { status: 'refunded' }));
        expect(second).toMatchObject({ decision: 'unchanged' });
        expect((await payments.findOrder(order.id))?.status).toBe('refunded');
        expect(await fulfilJobs(order)).toBe(1);
        expect(await outbox.find(REFUND_TOPIC, `order:${order.id}`)).toMatchObject({ status: 'queued' });
        expect((await payments.attemptsOf(order.id))[0]?.status).toBe('succeeded');
      });

      it('a refund before its success is parked, not dropped, and applied (paid → refunded) by the success', async () => {
        const { payments, alerts } = setup();
        const { order } = await pendingAttempt(payments);
        const fresh = (await payments.attemptsOf(order.id))[0]!;
        expect(fresh.status).toBe('pending');
        const refund = eventAbout(fresh, { status: 'refunded', eventType: 'charge.refunded', id: eventId('early') });
        const early = await payments.applyProviderEvent(refund);
        expect(early).toMatchObject({ decision: 'parked', duplicate: false, attemptId: fresh.id, becamePaid: false });
        expect(early.reason).toBe(REFUND_WAITS_FOR_SUCCESS);
        expect(await payments.applyProviderEvent(refund)).toMatchObject({ decision: 'parked', duplicate: true });
        expect((await payments.findOrder(order.id))?.status).toBe('awaiting_payment');
        expect(await outbox.find(REFUND_TOPIC, `order:${order.id}`)).toBeNull();

        const success = await payments.applyProviderEvent(eventAbout(fresh));
        expect(success).toMatchObject({ decision: 'applied', becamePaid: true });
        expect((await payments.findOrder(order.id))?.status).toBe('refunded');
        expect(await fulfilJobs(order)).toBe(1);
        expect(await outbox.find(REFUND_TOPIC, `order:${order.id}`)).toMatchObject({ status: 'queued' });
        const row = (await payments.journalOf(order.id)).find((e) => e.eventId === refund.key!.externalId);
        expect(row).toMatchObject({ decision: 'applied', attemptId: fresh.id, reason: null });
        expect(row?.resolvedAtMs).not.toBeNull();
        expect((await payments.parkedEvents()).filter((e) => e.merchantReference === fresh.id)).toEqual([]);
        // A redelivery of the refund changes nothing more; the first answer is replayed.
        expect(await payments.applyProviderEvent(refund)).toMatchObject({ decision: 'parked', duplicate: true });
        expect((await payments.findOrder(order.id))?.status).toBe('refunded');
        expect(alerts).toEqual([]);
      });

      it('a partial refund parked before its success keeps its amount: the order is paid, then refunded only by the rest', async () => {
        const { payments, alerts } = setup();
        const { order } = await pendingAttempt(payments);
        const fresh = (await payments.attemptsOf(order.id))[0]!;
        const part = Math.floor(fresh.amountMinor / 4);
        const partial = eventAbout(fresh, {
          status: 'refunded',
          eventType: 'charge.refunded',
          id: eventId('partial'),
          refundedMinor: part,
        });
        expect(await payments.applyProviderEvent(partial)).toMatchObject({ decision: 'parked' });
        expect(await payments.applyProviderEvent(eventAbout(fresh))).toMatchObject({ becamePaid: true });
        expect((await payments.findOrder(order.id))?.status).toBe('paid');
        expect(await outbox.find(REFUND_TOPIC, `order:${order.id}`)).toBeNull();
        const row = (await payments.journalOf(order.id)).find((e) => e.eventId === partial.key!.externalId);
        expect(row).toMatchObject({ decision: 'applied', attemptId: fresh.id });
        expect(row?.reason).toMatch(new RegExp(`^partial refund: ${part} of ${fresh.amountMinor}`));

        const older = eventAbout(fresh, { status: 'refunded', eventType: 'charge.refunded', refundedMinor: part - 1 });
        expect(await payments.applyProviderEvent(older)).toMatchObject({ decision: 'unchanged' });
        const rest = eventAbout(fresh, {
          status: 'refunded',
          eventType: 'charge.refunded',
          refundedMinor: fresh.amountMinor,
        });
        expect(await payments.applyProviderEvent(rest)).toMatchObject({ decision: 'applied' });
        expect((await payments.findOrder(order.id))?.status).toBe('refunded');
        expect(await fulfilJobs(order)).toBe(1);
        expect(await outbox.find(REFUND_TOPIC, `order:${order.id}`)).toMatchObject({ status: 'queued' });
        expect(alerts).toEqual([]);
      });

      it('a refund and its success both parked before the checkout answer (refund first): the answer applies both', async () => {
        const inner = new InMemoryPaymentProvider();
        let payments: Payments<unknown>;
        const early: string[] = [];
        const racing = {
          name: inner.name,
          async createPayment(request: CreatePaymentRequest): Promise<ProviderPayment> {
            const payment = await inner.createPayment(request);
            const attempt = (await payments.attemptsOf(request.orderId))[0]!;
            const about = { paymentId: payment.paymentId, merchantReference: null };
            for (const event of [
              eventAbout(attempt, { ...about, status: 'refunded', eventType: 'charge.refunded' }),
              eventAbout(attempt, about),
            ]) {
              early.push((await payments.applyProviderEvent(event)).decision);
            }
            return { ...payment, status: 'pending' };
          },
          getPaymentByReference: (ref: string) => inner.getPaymentByReference(ref),
          cancel: (id: string) => inner.cancel(id),
        };
        payments = new Payments(store, { provider: racing });
        const order = await newOrder(payments);
        const result = await payments.openCheckout(order.id, 'alice');
        const attempt = attemptOf(result);
        expect(early).toEqual(['parked', 'parked']);
        expect(attempt.status).toBe('succeeded');
        // The attempt and order the checkout answers are the ones its transaction wrote, field for field (the parked
        // success paid the order, the parked refund refunded it), not read again.
        expect(attempt).toEqual((await payments.attemptsOf(order.id))[0]);
        expect(result.kind === 'attempt' && result.order).toEqual(await payments.findOrder(order.id));
        expect((await payments.findOrder(order.id))?.status).toBe('refunded');
        expect(await fulfilJobs(order)).toBe(1);
        expect(await outbox.find(REFUND_TOPIC, `order:${order.id}`)).toMatchObject({ status: 'queued' });
        const journal = await payments.journalOf(order.id);
        expect(journal.filter((e) => e.decision === 'applied').map((e) => e.status)).toEqual(
          expect.arrayContaining(['succeeded', 'refunded']),
        );
        expect(journal.filter((e) => e.decision === 'parked')).toEqual([]);
      });

      it('reconcile applies a parked success and then the refund parked before it, in one run', async () => {
        const { payments } = setup();
        const { order } = await pendingAttempt(payments);
        const attempt = (await payments.attemptsOf(order.id))[0]!;
        const refund = eventAbout(attempt, { status: 'refunded', eventType: 'charge.refunded' });
        expect(await payments.applyProviderEvent(refund)).toMatchObject({ decision: 'parked' });
        const db = { db: store.db as unknown as Kysely<PaymentsDatabase>, statements: store.statements };
        const id = eventId('late-success');
        await insertJournal(
          db,
          {
            provider: 'fake',
            eventId: id,
            eventType: 'payment.succeeded',
            status: 'succeeded',
            paymentId: attempt.providerPaymentId,
            amountMinor: 1999,
            currency: 'EUR',
            merchantReference: null,
            orderRef: null,
            occurredAtMs: null,
            actionUrl: null,
            error: null,
          },
          { decision: 'parked', reason: 'no attempt matches yet', attemptId: null, orderId: null },
          Date.now() + 1,
        );
        const report = await payments.reconcile({ olderThanMs: 60_000 });
        expect(report.parkedMatched).toBeGreaterThanOrEqual(1);
        expect((await payments.findOrder(order.id))?.status).toBe('refunded');
        const journal = await payments.journalOf(order.id);
        expect(journal.find((e) => e.eventId === refund.key!.externalId)).toMatchObject({ decision: 'applied' });
        expect(journal.find((e) => e.eventId === id)).toMatchObject({ decision: 'applied' });
        expect(await fulfilJobs(order)).toBe(1);
        expect(await outbox.find(REFUND_TOPIC, `order:${order.id}`)).toMatchObject({ status: 'queued' });
      });

      it('rejects an event without a receipt key, without any reference or naming no possible order, recording nothing', async () => {
        const { payments } = setup();
        const { order, attempt } = await pendingAttempt(payments);
        await expect(payments.applyProviderEvent({ ...eventAbout(attempt), key: null })).rejects.toBeInstanceOf(
          InvalidPaymentEvent,
        );
        await expect(
          payments.applyProviderEvent(eventAbout(attempt, { paymentId: null, merchantReference: null })),
        ).rejects.toBeInstanceOf(InvalidPaymentEvent);
        // A signed event naming an order id no order can have (300 characters; a NUL): refused on every dialect,
        // before its journal column (order_ref, 200) could refuse it mid-delivery.
        for (const orderId of ['o'.repeat(300), 'order\u0000x', ' padded']) {
          await expect(payments.applyProviderEvent({ ...eventAbout(attempt), orderId })).rejects.toThrow(
            /orderId must be 1-64 printable ASCII characters/,
          );
        }
        expect((await payments.journalOf(order.id)).map((e) => e.eventType)).toEqual(['checkout.response']);
      });
    });
  });
}

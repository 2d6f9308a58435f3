import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { FULFIL_TOPIC } from '../../packages/payonce/src/payments/apply-report.js';
import {
  FakeProviderTimeout,
  InMemoryPaymentProvider,
} from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { CreatePaymentRequest, ProviderPayment } from '../../packages/payonce/src/payments/payment-provider.js';
import { type CheckoutResult, type PaymentAlert, Payments } from '../../packages/payonce/src/payments/payments.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import { eventAbout } from './payments-fixtures.js';

/** Stripe's answer to a request whose key is still being processed (409 idempotency_error). */
class RequestInFlight extends Error {
  constructor() {
    super('provider: a request with this idempotency key is in progress');
    this.name = 'RequestInFlight';
  }
}

/**
 * A slow provider: the FIRST create of a key times out on our side while the provider still works on it; it
 * commits only when `commitLate()` is called. Until then a look-up finds nothing and a re-send with the same key
 * answers "in progress" (as Stripe does); afterwards the key returns the one payment created.
 */
class LateCommitProvider extends InMemoryPaymentProvider {
  private inFlight: CreatePaymentRequest | null = null;
  private first = true;

  override async createPayment(request: CreatePaymentRequest): Promise<ProviderPayment> {
    if (this.first) {
      this.first = false;
      this.createCalls.push(request);
      this.inFlight = request;
      throw new FakeProviderTimeout();
    }
    if (this.inFlight?.idempotencyKey === request.idempotencyKey) {
      this.createCalls.push(request);
      throw new RequestInFlight();
    }
    return super.createPayment(request);
  }

  /** The provider finishes the first request: the payment exists (and is charged when `initialStatus` says so). */
  async commitLate(): Promise<ProviderPayment> {
    const request = this.inFlight;
    if (!request) throw new Error('nothing in flight');
    this.inFlight = null;
    const payment = await super.createPayment(request);
    this.createCalls.pop();
    return payment;
  }
}

function attemptOf(result: CheckoutResult) {
  if (result.kind !== 'attempt') throw new Error(`expected an attempt, got ${result.kind}`);
  return result.attempt;
}

for (const dialect of sqlDialectsFromEnv()) {
  describe(`${dialect}: reconciling an attempt the provider does not know (yet)`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
    });
    afterAll(async () => {
      await backend?.drop();
    });

    function setup(provider: InMemoryPaymentProvider) {
      const clock = new ManualClock(Date.now());
      const alerts: PaymentAlert[] = [];
      const payments = new Payments(store, { provider, clock, onAlert: (alert) => alerts.push(alert) });
      return { clock, payments, alerts };
    }

    it('a provider that commits after our timeout and after a "not found" look-up: one payment, paid once, no second attempt meanwhile', async () => {
      const provider = new LateCommitProvider({ initialStatus: 'succeeded' });
      const { clock, payments, alerts } = setup(provider);
      const order = await payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
      const unknown = attemptOf(await payments.openCheckout(order.id, 'alice'));
      expect(unknown.status).toBe('unknown');

      clock.advance(60_000);
      const first = await payments.reconcile({ olderThanMs: 60_000 });
      expect(first).toMatchObject({ examined: 1, resolved: 0, resent: 1, resendErrors: 1 });
      expect((await payments.attemptsOf(order.id)).map((a) => a.status)).toEqual(['unknown']);
      expect(provider.createCalls.map((c) => c.idempotencyKey)).toEqual([
        unknown.idempotencyKey,
        unknown.idempotencyKey,
      ]);
      const meanwhile = await payments.openCheckout(order.id, 'alice');
      expect(meanwhile).toMatchObject({ kind: 'attempt', created: false, attempt: { id: unknown.id } });

      const payment = await provider.commitLate();
      const webhook = await payments.applyProviderEvent(eventAbout(unknown, { paymentId: payment.paymentId }));
      expect(webhook).toMatchObject({ decision: 'applied', becamePaid: true });
      expect(await payments.attemptsOf(order.id)).toMatchObject([
        { id: unknown.id, status: 'succeeded', providerPaymentId: payment.paymentId },
      ]);
      expect(await payments.findOrder(order.id)).toMatchObject({ status: 'paid', paidAttemptId: unknown.id });
      expect((await payments.openCheckout(order.id, 'alice')).kind).toBe('already-paid');
      clock.advance(60_000);
      expect(await payments.reconcile({ olderThanMs: 60_000 })).toMatchObject({ examined: 0, resent: 0 });
      expect((await payments.outbox.find(FULFIL_TOPIC, `order:${order.id}`))?.id).toBeDefined();
      expect(provider.paymentFor(unknown.id)?.paymentId).toBe(payment.paymentId);
      expect(alerts).toEqual([]);
    });

    it('the late commit is learnt by the next reconcile run: its re-send with the same key returns that payment', async () => {
      const provider = new LateCommitProvider({ initialStatus: 'succeeded' });
      const { clock, payments } = setup(provider);
      const order = await payments.createOrder('alice', { amountMinor: 2500, currency: 'USD' });
      const unknown = attemptOf(await payments.openCheckout(order.id, 'alice'));
      clock.advance(60_000);
      await payments.reconcile({ olderThanMs: 60_000 });
      const payment = await provider.commitLate();
      clock.advance(60_000);
      expect(await payments.reconcile({ olderThanMs: 60_000 })).toMatchObject({ examined: 1, resolved: 1, resent: 0 });
      expect(await payments.attemptsOf(order.id)).toMatchObject([
        { id: unknown.id, status: 'succeeded', providerPaymentId: payment.paymentId },
      ]);
      expect((await payments.findOrder(order.id))?.status).toBe('paid');
    });

    it('a create that never reached the provider (process killed mid-create, attempt left creating): the re-send creates exactly one payment', async () => {
      const provider = new InMemoryPaymentProvider({ initialStatus: 'succeeded' });
      const { clock, payments } = setup(provider);
      const order = await payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
      provider.failNextCreate('timeout-before-create');
      const unknown = attemptOf(await payments.openCheckout(order.id, 'alice'));
      expect(provider.paymentFor(unknown.id)).toBeUndefined();
      clock.advance(60_000);
      expect(await payments.reconcile({ olderThanMs: 60_000 })).toMatchObject({
        examined: 1,
        resolved: 1,
        resent: 1,
        resendErrors: 0,
      });
      expect(provider.createCalls.map((c) => c.idempotencyKey)).toEqual([
        unknown.idempotencyKey,
        unknown.idempotencyKey,
      ]);
      const payment = provider.paymentFor(unknown.id);
      expect(await payments.attemptsOf(order.id)).toMatchObject([
        { id: unknown.id, status: 'succeeded', providerPaymentId: payment?.paymentId },
      ]);
      expect((await payments.journalOf(order.id)).map((e) => e.eventType)).toContain('reconciliation.resend');
      expect((await payments.openCheckout(order.id, 'alice')).kind).toBe('already-paid');
    });

    it('a definitive refusal of the re-send marks the attempt failed, and then exactly one new attempt can open', async () => {
      const provider = new InMemoryPaymentProvider({ initialStatus: 'succeeded' });
      const { clock, payments } = setup(provider);
      const order = await payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
      provider.failNextCreate('timeout-before-create');
      const unknown = attemptOf(await payments.openCheckout(order.id, 'alice'));
      provider.failNextCreate('decline');
      clock.advance(60_000);
      expect(await payments.reconcile({ olderThanMs: 60_000 })).toMatchObject({ resolved: 1, resent: 1 });
      const [failed] = await payments.attemptsOf(order.id);
      expect(failed).toMatchObject({ id: unknown.id, status: 'failed' });
      expect(failed?.lastError).toContain('card_declined');
      const next = attemptOf(await payments.openCheckout(order.id, 'alice'));
      expect(next.id).not.toBe(unknown.id);
      expect(next.status).toBe('succeeded');
      expect((await payments.findOrder(order.id))?.paidAttemptId).toBe(next.id);
    });
  });
}

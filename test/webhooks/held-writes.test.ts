import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { FULFIL_TOPIC } from '../../packages/payonce/src/payments/apply-report.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { PaymentAttempt } from '../../packages/payonce/src/payments/payment-attempt.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import type { ProviderPaymentEvent } from '../../packages/payonce/src/payments/provider-payment-event.js';
import { HeldWrites } from '../../packages/payonce/src/stores/sql/held-writes.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createWebhookIntake, type WebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { SqlDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';
import type { ProviderEvent } from '../../packages/payonce/src/webhooks/providers/provider-event.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';
import { BatchGate } from './support/batch-gate.js';
import { STRIPE_SECRET, signedStripeHeaders } from './support/stripe-deliveries.js';

// Issue #40, held writes (PostgreSQL): the closing writes of a group-commit batch wait for the next statement on its
// connection or its end. A write that sends a second statement once its first is answered (a partial refund's
// amount after its journal row) must have it sent while its delivery still runs, so the batch commits as it is,
// instead of failing at its end and running again delivery by delivery.

let serial = 0;
const uid = () => `${++serial}_${process.pid}`;

/** A signed-shaped Stripe body whose only role is to carry the event id; the handler applies `events`' entry. */
const bodyOf = (eventId: string) =>
  JSON.stringify({
    id: eventId,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: { id: `pi_${eventId}`, object: 'payment_intent', amount: 1, currency: 'eur', status: 'succeeded' },
    },
  });

describe('postgres: held writes of a group-commit batch', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  let payments: Payments<unknown>;
  let intake: WebhookIntake;
  /** The payment event each delivery's handler applies, by event id. */
  const events = new Map<string, ProviderPaymentEvent>();
  const gate = new BatchGate();

  beforeAll(async () => {
    backend = await createSqlBackend('postgres');
    store = await backend.open();
    payments = new Payments(store, { provider: new InMemoryPaymentProvider({ name: 'stripe' }) });
    intake = createWebhookIntake({
      guard: new IdempotencyGuard(store),
      journal: new SqlDeliveryJournal(store),
      groupCommit: { maxConcurrentBatches: 1 },
      endpoints: {
        stripe: {
          profile: stripeProfile(),
          scheme: stripeScheme({ secrets: STRIPE_SECRET }),
          transaction: true,
          async prepareBatch(tx: unknown, batch: readonly ProviderEvent[]) {
            const known = batch.flatMap((event) => events.get(event.eventId ?? '') ?? []);
            await payments.prelockProviderEvents(known, tx as never);
          },
          async handler(event: ProviderEvent, { tx }) {
            await gate.pass(event.eventId);
            const paymentEvent = events.get(event.eventId ?? '');
            if (paymentEvent === undefined) return {};
            const applied = await payments.applyProviderEvent(paymentEvent, tx as never, { receiptHeld: true });
            return { decision: applied.decision };
          },
        },
      },
    });
  }, 60_000);
  afterAll(async () => backend?.drop());

  const deliver = async (eventId: string) => {
    const body = bodyOf(eventId);
    const headers = signedStripeHeaders(body);
    return (await intake.receive({ endpoint: 'stripe', rawBody: new TextEncoder().encode(body), headers })).status;
  };

  /** Delivers `eventIds` as ONE batch (a gate delivery holds the only slot while they queue). */
  async function inOneBatch(eventIds: readonly string[]): Promise<number[]> {
    const { gate: gated, answers } = await gate.inOneBatch(
      () => deliver(`evt_gate_${uid()}`),
      () => Promise.all(eventIds.map(deliver)),
    );
    expect(gated).toBe(200);
    return answers;
  }

  async function paidAttempt(): Promise<PaymentAttempt> {
    const order = await payments.createOrder('customer-a', { amountMinor: 2000, currency: 'EUR' });
    const opened = await payments.openCheckout(order.id, 'customer-a');
    if (opened.kind !== 'attempt') throw new Error(opened.kind);
    expect(await deliver(eventAbout(opened.attempt, 'succeeded'))).toBe(200);
    return opened.attempt;
  }

  function eventAbout(attempt: PaymentAttempt, status: 'succeeded' | 'refunded', refundedMinor?: number): string {
    const id = `evt_${status}_${uid()}`;
    events.set(id, {
      provider: 'stripe',
      key: new RequestKey('stripe', id),
      eventType: `payment.${status}`,
      status,
      paymentId: attempt.providerPaymentId,
      amountMinor: attempt.amountMinor,
      currency: attempt.currency,
      merchantReference: attempt.id,
      occurredAtMs: null,
      ...(refundedMinor === undefined ? {} : { refundedMinor }),
    });
    return id;
  }

  /** The failures the batches' held writes met while `work` ran (each one ran its batch again, delivery by delivery). */
  async function heldFailures(work: () => Promise<void>): Promise<unknown[]> {
    const settle = vi.spyOn(HeldWrites.prototype, 'settle');
    try {
      await work();
      const outcomes = await Promise.allSettled(settle.mock.results.map((result) => result.value as Promise<void>));
      return outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    } finally {
      settle.mockRestore();
    }
  }

  it('a batch of partial refunds commits as it is: each amount goes with its journal row', async () => {
    const attempts = await Promise.all([paidAttempt(), paidAttempt(), paidAttempt()]);
    const failures = await heldFailures(async () => {
      const refunds = attempts.map((attempt) => eventAbout(attempt, 'refunded', 500));
      expect(await inOneBatch(refunds)).toEqual([200, 200, 200]);
    });
    expect(failures).toEqual([]);
    for (const attempt of attempts) expect(await payments.refundedOf(attempt.id)).toBe(500);
  });

  it('a partial refund alone in its batch commits as it is', async () => {
    const attempt = await paidAttempt();
    const failures = await heldFailures(async () => {
      expect(await deliver(eventAbout(attempt, 'refunded', 700))).toBe(200);
    });
    expect(failures).toEqual([]);
    expect(await payments.refundedOf(attempt.id)).toBe(700);
  });

  it('a success whose fulfilment job exists already is applied once: the order paid, the one job kept', async () => {
    const order = await payments.createOrder('customer-a', { amountMinor: 2000, currency: 'EUR' });
    const opened = await payments.openCheckout(order.id, 'customer-a');
    if (opened.kind !== 'attempt') throw new Error(opened.kind);
    // The application enqueued it itself: the transition's enqueue meets a duplicate and reads it back, a
    // statement after its held write was answered, so this batch runs again delivery by delivery (design.md §11).
    await store.db
      .transaction()
      .execute((trx) => payments.outbox.enqueueOnce(trx as never, FULFIL_TOPIC, `order:${order.id}`, {}));
    const other = await payments.createOrder('customer-a', { amountMinor: 2000, currency: 'EUR' });
    const second = await payments.openCheckout(other.id, 'customer-a');
    if (second.kind !== 'attempt') throw new Error(second.kind);
    expect(
      await inOneBatch([eventAbout(opened.attempt, 'succeeded'), eventAbout(second.attempt, 'succeeded')]),
    ).toEqual([200, 200]);
    for (const id of [order.id, other.id]) {
      expect((await payments.findOrder(id))?.status).toBe('paid');
      expect(await payments.outbox.jobsByDedupeKey(`order:${id}`)).toHaveLength(1);
    }
  });
});

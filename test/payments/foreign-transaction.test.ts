import { drizzle } from 'drizzle-orm/node-postgres';
import { sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { FULFIL_TOPIC } from '../../packages/payonce/src/payments/apply-report.js';
import type { CheckoutResult } from '../../packages/payonce/src/payments/checkout.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { PaymentAttempt } from '../../packages/payonce/src/payments/payment-attempt.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import { drizzleTransactions, withDrizzleTransaction } from '../../packages/payonce/src/tx/drizzle.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { webhookEndpoint } from '../../packages/payonce/src/webhooks/webhook-endpoint.js';
import { openStackFixture, type StackStore, type StackTarget } from '../stack/stack-target.js';
import { appPool, effects } from '../webhooks/support/stack-intake.js';
import { invoicePaidBody, STRIPE_SECRET, signedStripeHeaders } from '../webhooks/support/stripe-deliveries.js';
import { eventAbout, eventId } from './payments-fixtures.js';

// Payments' transitions on a transaction of the application's own stack (issue #41): the transition, its journal
// row and the fulfilment outbox row commit with the application's own Drizzle write, or none of them does.

function attemptOf(result: CheckoutResult): PaymentAttempt {
  if (result.kind !== 'attempt') throw new Error(`expected an attempt, got ${result.kind}`);
  return result.attempt;
}

describe('postgres: payments in a Drizzle transaction of the application', () => {
  let fixture: { target: StackTarget; store: StackStore; drop(): Promise<void> };
  let pool: pg.Pool;
  let payments: Payments<unknown>;
  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    pool = appPool(fixture.target.url, fixture.target.schema ?? '');
    payments = new Payments(fixture.store as never, { provider: new InMemoryPaymentProvider() });
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await fixture?.drop();
  });

  const count = async (query: ReturnType<typeof sql<{ n: string }>>) =>
    Number((await query.execute(fixture.store.db)).rows[0]?.n);
  const effectsOf = (id: string) =>
    count(sql<{ n: string }>`select count(*) as n from stack_effects where event_id = ${id}`);
  const fulfilJobs = (orderId: string) =>
    count(
      sql<{
        n: string;
      }>`select count(*) as n from payonce_outbox where topic = ${FULFIL_TOPIC} and dedupe_key = ${`order:${orderId}`}`,
    );
  const openAttempt = async () => {
    const order = await payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
    return { order, attempt: attemptOf(await payments.openCheckout(order.id, 'alice')) };
  };
  /** Journal rows of the order's provider events (the checkout's own answer is journaled too). */
  const eventRows = async (orderId: string) =>
    (await payments.journalOf(orderId)).filter((entry) => entry.provider === 'fake' && entry.eventId.startsWith('evt_'))
      .length;

  it('withDrizzleTransaction: the transition, journal row and outbox row commit with the Drizzle write', async () => {
    const { order, attempt } = await openAttempt();
    const db = drizzle(pool);
    const event = eventAbout(attempt);
    const result = await db.transaction(async (tx) => {
      await tx.insert(effects).values({ eventId: event.key?.externalId ?? '' });
      return withDrizzleTransaction(fixture.store, tx, (trx) => payments.applyProviderEvent(event, trx as never));
    });
    expect(result).toMatchObject({ decision: 'applied', becamePaid: true, duplicate: false });
    expect((await payments.findOrder(order.id))?.status).toBe('paid');
    expect(await eventRows(order.id)).toBe(1);
    expect([await fulfilJobs(order.id), await effectsOf(event.key?.externalId ?? '')]).toEqual([1, 1]);
    const again = await payments.applyProviderEvent(event);
    expect(again).toMatchObject({ duplicate: true });
  });

  it('withDrizzleTransaction: a throw after the transition rolls back the transition, journal, outbox row and write', async () => {
    const { order, attempt } = await openAttempt();
    const db = drizzle(pool);
    const event = eventAbout(attempt);
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(effects).values({ eventId: event.key?.externalId ?? '' });
        await withDrizzleTransaction(fixture.store, tx, (trx) => payments.applyProviderEvent(event, trx as never));
        throw new Error('the application failed after the transition');
      }),
    ).rejects.toThrow('the application failed');
    expect((await payments.findOrder(order.id))?.status).not.toBe('paid');
    expect(await eventRows(order.id)).toBe(0);
    expect([await fulfilJobs(order.id), await effectsOf(event.key?.externalId ?? '')]).toEqual([0, 0]);
    expect(await payments.applyProviderEvent(event)).toMatchObject({ decision: 'applied', duplicate: false });
  });

  it('inside an intake handler on drizzleTransactions, with context.payonceTx: all of it commits once, or none', async () => {
    const db = drizzle(pool);
    const failOnce = new Set<string>();
    const attempts = new Map<string, PaymentAttempt>();
    const guard = new IdempotencyGuard(fixture.store);
    const intake = createWebhookIntake({
      guard,
      endpoints: {
        stripe: webhookEndpoint({
          profile: stripeProfile(),
          scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
          transaction: drizzleTransactions(db),
          handler: async (event, { tx, payonceTx }) => {
            const id = event.eventId ?? '';
            const attempt = attempts.get(id);
            if (!attempt) throw new Error('unknown test event');
            await tx.insert(effects).values({ eventId: id });
            const applied = await payments.applyProviderEvent(eventAbout(attempt, { id }), payonceTx as never);
            if (failOnce.delete(id)) throw new Error('the handler failed after the transition');
            return { received: true, decision: applied.decision };
          },
        }),
      },
    });
    const { order, attempt } = await openAttempt();
    const id = eventId('intake');
    attempts.set(id, attempt);
    failOnce.add(id);
    const body = invoicePaidBody(id, `in_${id}`);
    const deliver = () =>
      intake.receive({ endpoint: 'stripe', rawBody: Buffer.from(body), headers: signedStripeHeaders(body) });
    expect((await deliver()).status).toBe(500);
    expect((await payments.findOrder(order.id))?.status).not.toBe('paid');
    expect([await fulfilJobs(order.id), await effectsOf(id), await eventRows(order.id)]).toEqual([0, 0, 0]);
    expect(await guard.find(new RequestKey('stripe', id))).toBeNull();
    const ok = await deliver();
    expect([ok.status, Buffer.from(ok.body).toString()]).toEqual([200, '{"received":true,"decision":"applied"}']);
    expect((await payments.findOrder(order.id))?.status).toBe('paid');
    expect([await fulfilJobs(order.id), await effectsOf(id), await eventRows(order.id)]).toEqual([1, 1, 1]);
    expect((await deliver()).status).toBe(200);
    expect([await fulfilJobs(order.id), await effectsOf(id), await eventRows(order.id)]).toEqual([1, 1, 1]);
  });
});

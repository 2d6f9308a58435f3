import { readFileSync } from 'node:fs';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deleteAmqpNames } from '../../packages/cli/src/relay-storm/storm-broker.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { Store } from '../../packages/payonce/src/core/store.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { OutboxWorker } from '../../packages/payonce/src/outbox/outbox-worker.js';
import { transaction } from '../../packages/payonce/src/outbox/sql-transaction.js';
import { FULFIL_TOPIC } from '../../packages/payonce/src/payments/apply-report.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import { consumeRabbitMq } from '../../packages/payonce/src/relay/amqp/amqp-consumer.js';
import { amqpPublisher } from '../../packages/payonce/src/relay/amqp/amqp-publisher.js';
import type { RunningConsumer } from '../../packages/payonce/src/relay/inbox.js';
import { consumeJetStream } from '../../packages/payonce/src/relay/nats/nats-consumer.js';
import { natsPublisher } from '../../packages/payonce/src/relay/nats/nats-publisher.js';
import { OutboxRelay } from '../../packages/payonce/src/relay/outbox-relay.js';
import { RedisStore } from '../../packages/payonce/src/stores/redis/redis-store.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { tablesOf } from '../../packages/payonce/src/stores/sql/table-namespace.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { deleteKeysWithPrefix, redisTestClient } from '../contract/backends/redis.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';
import { uniqueName } from '../relay/relay-fixtures.js';
import { stripeV1 } from '../webhooks/signers.js';
import { registerTestSdk } from './otel-sdk.js';

// The Done-when test of issue 39: checkout → signed Stripe webhook delivered twice → fulfilment job → relayed
// message (NATS JetStream) → consumer, under the OpenTelemetry SDK's in-memory exporters.

const NATS = 'nats://127.0.0.1:4222';
const AMQP = 'amqp://guest:guest@127.0.0.1:5672';
const SECRET = 'whsec_placeholder_otel';
const FULFILLED = 'order.fulfilled';
/** Stripe's checkout.session.completed (shared fixture): amount_total 999, currency eur. */
const FIXTURE = JSON.parse(
  readFileSync(
    new URL('../../../shared/fixtures/providers/stripe/payloads/checkout.session.completed.json', import.meta.url),
    'utf8',
  ),
) as { raw_body: string };

/** The fixture's event with a fresh event id and `client_reference_id` = the attempt (the merchant reference). */
function stripeDelivery(eventId: string, attemptId: string): { rawBody: Uint8Array; headers: Record<string, string> } {
  const event = JSON.parse(FIXTURE.raw_body) as {
    id: string;
    created: number;
    data: { object: Record<string, unknown> };
  };
  event.id = eventId;
  event.data.object.client_reference_id = attemptId;
  const rawBody = new TextEncoder().encode(JSON.stringify(event));
  const t = Math.floor(Date.now() / 1000);
  return { rawBody, headers: { 'stripe-signature': `t=${t},v1=${stripeV1(SECRET, t, rawBody)}` } };
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const sdk = registerTestSdk();
afterAll(() => sdk.shutdown());
beforeEach(() => sdk.spans.reset());

const id = (span: ReadableSpan | undefined) => span?.spanContext().spanId;
const traceOf = (span: ReadableSpan | undefined) => span?.spanContext().traceId;

for (const dialect of ['postgres', 'sqlite'] as const)
  describe(`one payment, traced end to end (${dialect})`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
    });
    afterAll(async () => {
      await backend?.drop();
    });

    it('checkout → webhook twice → fulfilment job → relayed message → consumer: one trace, a link to the checkout', async () => {
      const provider = new InMemoryPaymentProvider({ name: 'stripe' });
      const payments = new Payments(store, { provider });
      const outbox = new Outbox(store);
      const guard = new IdempotencyGuard(store);
      const intake = createWebhookIntake({
        guard,
        endpoints: {
          stripe: {
            profile: stripeProfile(),
            scheme: stripeScheme({ secrets: SECRET }),
            handler: async (event) => {
              await payments.applyProviderEvent({
                provider: 'stripe',
                key: event.key,
                eventType: event.eventType,
                status: 'succeeded',
                paymentId: null,
                amountMinor: event.amountMinor,
                currency: event.currency,
                merchantReference: event.merchantReference,
                occurredAtMs: event.occurredAtMs,
              });
            },
          },
        },
      });
      const worker = new OutboxWorker(store, {
        [FULFIL_TOPIC]: async (job, context) => {
          await context.once(`fulfil:${job.dedupeKey}`, (trx) =>
            outbox.enqueueOnce(trx, FULFILLED, job.dedupeKey, { order: job.dedupeKey }),
          );
        },
      });
      const stream = uniqueName('OTELT');
      const prefix = uniqueName('ot');
      const publisher = natsPublisher({ servers: NATS, stream, subjectPrefix: prefix });
      const relay = new OutboxRelay(store, publisher, { topics: [FULFILLED], leaseMs: 5_000 });
      let consumer: RunningConsumer | null = null;
      let consumed: unknown = null;
      let attemptId = '';
      try {
        // 1. The checkout (its own trace: the customer's request).
        const order = await payments.createOrder('customer-1', { amountMinor: 999, currency: 'EUR' });
        const checkout = await payments.openCheckout(order.id, 'customer-1');
        if (checkout.kind !== 'attempt') throw new Error('expected an attempt');
        attemptId = checkout.attempt.id;
        // 2. The provider's webhook, delivered twice (its own trace per delivery).
        const eventId = `evt_otel_${uniqueName('')}`;
        const first = await intake.receive({ endpoint: 'stripe', ...stripeDelivery(eventId, checkout.attempt.id) });
        const second = await intake.receive({ endpoint: 'stripe', ...stripeDelivery(eventId, checkout.attempt.id) });
        expect([first.status, second.status]).toEqual([200, 200]);
        expect((await payments.findOrder(order.id))?.status).toBe('paid');
        // 3. The fulfilment job, 4. the relayed message, 5. the consumer.
        expect(await worker.drain()).toBe(1);
        await relay.prepare();
        expect(await relay.drain()).toBe(1);
        consumer = await consumeJetStream({
          servers: NATS,
          stream,
          durable: 'otel',
          filterSubject: `${prefix}.>`,
          target: store,
          inboxName: `otel-${stream}`,
          handler: async (message) => {
            consumed = message.payload;
          },
        });
        await until(() => consumer!.counters.applied === 1);
      } finally {
        await consumer?.stop();
        await publisher.close();
        const nc = await connect({ servers: NATS });
        const jsm = await jetstreamManager(nc);
        await jsm.streams.delete(stream).catch(() => {});
        await jsm.streams.delete(`${stream}_DEAD_LETTER`).catch(() => {});
        await nc.close();
      }
      expect(consumed).toEqual({ order: expect.stringMatching(/^order:/) });

      const [checkoutSpan] = sdk.named('payonce.payments.checkout');
      const [providerCall] = sdk.named('payonce.provider.call');
      expect(providerCall?.parentSpanContext?.spanId).toBe(id(checkoutSpan));
      expect(providerCall?.attributes['payonce.provider.method']).toBe('createPayment');

      const deliveries = sdk.named('payonce.webhook.intake');
      expect(deliveries.map((span) => span.attributes['payonce.idempotency.outcome'])).toEqual(['fresh', 'replay']);
      const [delivery, redelivery] = deliveries;
      const trace = traceOf(delivery);
      expect(trace).not.toBe(traceOf(checkoutSpan));
      // The redelivery (another trace: the provider's new request) links to the first delivery's span.
      expect(traceOf(redelivery)).not.toBe(trace);
      expect(delivery?.links).toEqual([]);
      expect(redelivery?.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([
        [trace, id(delivery)],
      ]);
      // The webhook's guard spans: the intake's receipt, fresh then replay.
      const intakeGuards = sdk
        .named('payonce.guard')
        .filter((span) => span.attributes['payonce.receipt.provider'] === 'stripe');
      expect(intakeGuards.map((span) => span.attributes['payonce.idempotency.outcome'])).toEqual(['fresh', 'replay']);
      expect(intakeGuards.map(traceOf)).toEqual([trace, traceOf(redelivery)]);

      // The transition links to the checkout that caused it (stored with the attempt).
      const [transition] = sdk.named('payonce.payments.transition');
      expect(traceOf(transition)).toBe(trace);
      expect(transition?.attributes['payonce.attempt.id']).toBe(attemptId);
      expect(checkoutSpan?.attributes['payonce.attempt.id']).toBe(attemptId);
      expect(transition?.links.map((link) => link.context.spanId)).toEqual([id(checkoutSpan)]);
      expect(transition?.links[0]?.context.traceId).toBe(traceOf(checkoutSpan));

      // Enqueue (in the delivery) → run → effect → enqueue → publish → process → inbox: one trace.
      const enqueues = sdk.named('payonce.outbox.enqueue');
      const fulfilEnqueue = enqueues.find((span) => span.attributes['messaging.destination.name'] === FULFIL_TOPIC);
      const relayEnqueue = enqueues.find((span) => span.attributes['messaging.destination.name'] === FULFILLED);
      const [run] = sdk.named('payonce.outbox.run');
      const [claim] = sdk.named('payonce.outbox.claim');
      const [effect] = sdk.named('payonce.outbox.effect');
      const [send] = sdk.named(`send ${FULFILLED}`);
      const [process] = sdk.spans.getFinishedSpans().filter((span) => span.name.startsWith('process '));
      const [inbox] = sdk.named('payonce.relay.inbox');
      expect(run?.parentSpanContext?.spanId).toBe(id(fulfilEnqueue));
      expect(claim?.parentSpanContext?.spanId).toBe(id(run));
      expect(effect?.parentSpanContext?.spanId).toBe(id(run));
      expect(relayEnqueue?.parentSpanContext?.spanId).toBe(id(effect));
      expect(send?.parentSpanContext?.spanId).toBe(id(relayEnqueue));
      expect(process?.parentSpanContext?.spanId).toBe(id(send));
      expect(inbox?.parentSpanContext?.spanId).toBe(id(process));
      for (const span of [fulfilEnqueue, run, claim, effect, relayEnqueue, send, process, inbox]) {
        expect(traceOf(span)).toBe(trace);
      }
      expect(run?.attributes['payonce.result']).toBe('done');
      expect(send?.attributes['messaging.system']).toBe('nats');
      expect(send?.attributes['messaging.operation.type']).toBe('send');
      expect(process?.attributes['messaging.operation.type']).toBe('process');
      expect(process?.attributes['payonce.delivery.redelivery']).toBe(0);
      expect(inbox?.attributes['payonce.result']).toBe('applied');

      // The outcome counter: the intake's receipt fresh once and replayed once (cumulative across this file).
      const points = await sdk.points('payonce.idempotency.outcomes');
      const stripe = points.filter((point) => point.attributes['payonce.receipt.provider'] === 'stripe');
      const byOutcome = Object.fromEntries(stripe.map((p) => [p.attributes['payonce.idempotency.outcome'], p.value]));
      const runs = dialect === 'postgres' ? 1 : 2;
      expect(byOutcome).toEqual({ fresh: runs, replay: runs });
      const redeliveries = await sdk.points('payonce.webhook.redeliveries');
      expect(redeliveries.find((p) => p.attributes['payonce.receipt.provider'] === 'stripe')?.value).toBe(runs);
    });
  });

/** A Stripe intake on `store` whose handler fails `failures` times, then succeeds. */
function failingIntake(store: Store, failures: { left: number }) {
  return createWebhookIntake({
    guard: new IdempotencyGuard(store),
    endpoints: {
      stripe: {
        profile: stripeProfile(),
        scheme: stripeScheme({ secrets: SECRET }),
        handler: async () => {
          if (failures.left-- > 0) throw new Error('placeholder failure');
        },
      },
    },
  });
}

// The first delivery's trace context kept with the receipt on the other stores (MariaDB: payonce_receipt_trace;
// Redis: the receipt hash), and taken away with the receipt by the purge. The handler fails once: the retry (fresh,
// attempt 2) and the replay both link to the first delivery, which stays the one stored.
for (const kind of ['mysql', 'redis'] as const)
  describe(`the first delivery's trace, kept with the receipt (${kind})`, () => {
    let store: Store;
    let close: () => Promise<void>;
    beforeAll(async () => {
      if (kind === 'mysql') {
        const backend = await createSqlBackend('mysql');
        store = await backend.open();
        close = () => backend.drop();
      } else {
        const client = redisTestClient();
        const prefix = `payonce-otel-${uniqueName('')}:`;
        store = new RedisStore({ client, prefix });
        close = async () => {
          await deleteKeysWithPrefix(client, prefix);
          await client.quit();
        };
      }
    });
    afterAll(async () => close?.());

    it('a failed delivery, its retry and a replay: the later two link to the first; the purge removes it', async () => {
      const intake = failingIntake(store, { left: 1 });
      const eventId = `evt_otel_${uniqueName('')}`;
      const statuses = [];
      for (let n = 0; n < 3; n++) {
        statuses.push(
          (await intake.receive({ endpoint: 'stripe', ...stripeDelivery(eventId, 'att_placeholder') })).status,
        );
      }
      expect(statuses[0]).toBeGreaterThanOrEqual(500);
      expect(statuses.slice(1)).toEqual([200, 200]);
      const [first, retry, replay] = sdk.named('payonce.webhook.intake');
      expect([retry, replay].map((span) => span?.attributes['payonce.idempotency.outcome'])).toEqual([
        'fresh',
        'replay',
      ]);
      for (const later of [retry, replay]) {
        expect(later?.links.map((link) => link.context.spanId)).toEqual([id(first)]);
      }
      const key = new RequestKey('stripe', eventId);
      expect(JSON.parse((await store.receiptTraceOf?.(key)) ?? '{}').traceparent).toContain(id(first));
      expect(await store.purgeBatch(Date.now() + 60_000, 100, 'stripe')).toBeGreaterThanOrEqual(1);
      expect(await store.receiptTraceOf?.(key)).toBeNull();
    });
  });

// AMQP and MariaDB: a job enqueued inside a span keeps its trace context in payonce_outbox_trace (MariaDB), the
// relay's publish to RabbitMQ is the enqueue's child and carries `traceparent` as an AMQP header, and the consumer's
// `process` span is the publish's child.
describe('traceparent over AMQP, the outbox trace on MariaDB', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  beforeAll(async () => {
    backend = await createSqlBackend('mysql');
    store = await backend.open();
  });
  afterAll(async () => backend?.drop());

  it('enqueue → publish (AMQP header) → consumer: one trace, each the child of the one before', async () => {
    const exchange = uniqueName('otel-x-');
    const queue = uniqueName('otel-q-');
    const topic = uniqueName('otel.');
    const publisher = amqpPublisher({ url: AMQP, exchange, subjectPrefix: 'p' });
    const relay = new OutboxRelay(store, publisher, { topics: [topic] });
    let consumer: RunningConsumer | null = null;
    const carried: unknown[] = [];
    try {
      await relay.prepare();
      consumer = await consumeRabbitMq({
        url: AMQP,
        exchange,
        queue,
        bindingKeys: ['p.#'],
        target: store,
        handler: async (message) => {
          carried.push(message.trace?.traceparent);
        },
      });
      const outbox = new Outbox(store);
      const job = await trace
        .getTracer('test')
        .startActiveSpan('caller', async (caller) =>
          transaction(store, (trx) => outbox.enqueueOnce(trx, topic, 'otel-amqp-1', { n: 1 })).finally(() =>
            caller.end(),
          ),
        );
      const stored = await tablesOf<{ payonce_outbox_trace: { job_id: string; trace_context: string } }>(store)
        .selectFrom('payonce_outbox_trace')
        .select('trace_context')
        .where('job_id', '=', job.jobId)
        .executeTakeFirst();
      expect(stored?.trace_context).toMatch(/"traceparent":"00-[0-9a-f]{32}-[0-9a-f]{16}-01"/);
      expect(await relay.drain()).toBe(1);
      await until(() => consumer!.counters.applied === 1);
    } finally {
      await consumer?.stop();
      await publisher.close();
      await deleteAmqpNames(AMQP, exchange, queue);
    }
    const [enqueue] = sdk.named('payonce.outbox.enqueue');
    const [send] = sdk.named(`send ${topic}`);
    const [process] = sdk.spans.getFinishedSpans().filter((span) => span.name.startsWith('process '));
    expect(send?.parentSpanContext?.spanId).toBe(id(enqueue));
    expect(process?.parentSpanContext?.spanId).toBe(id(send));
    for (const span of [send, process]) expect(traceOf(span)).toBe(traceOf(enqueue));
    expect(send?.attributes['messaging.system']).toBe('rabbitmq');
    expect(process?.attributes['messaging.system']).toBe('rabbitmq');
    expect(carried).toEqual([`00-${traceOf(send)}-${id(send)}-01`]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { TransactionsUnsupported } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { RedisStore } from '../../packages/payonce/src/stores/redis/redis-store.js';
import { createWebhookIntake, type WebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { MemoryDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/memory-delivery-journal.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { readFixture, type Vector } from './fixtures.js';
import { STRIPE_SECRET, STRIPE_VECTOR, stripeSignature } from './support/stripe-deliveries.js';
import {
  type Answer,
  FRAMEWORKS,
  type Framework,
  postBytes,
  startWebhookApp,
  type WebhookApp,
} from './support/webhook-apps.js';

// One behaviour table, run on every framework's route (fastify, express, hono): the routes must be equal.
// Deliveries are Stripe's own test vectors (../shared/fixtures/providers/stripe/signature), verified at their
// "now" (a ManualClock at timestamp_now), and bodies signed with the same secret by an independent signer.

const vector = (name: string) => readFixture(`stripe/signature/${name}.json`) as Vector;
const NOW_S = STRIPE_VECTOR.timestamp_now ?? 0;
const MAX_BODY = 4_096;

/** An event body (pretty-printed: the bytes differ from any re-serialisation) of type `type` with id `id`. */
function eventBody(id: string, type = 'payment_intent.succeeded', amount = 1999): string {
  const object = { id: `pi_${id}`, object: 'payment_intent', amount, currency: 'eur', metadata: {} };
  return JSON.stringify({ id, object: 'event', type, created: NOW_S, data: { object } }, null, 2);
}

interface Harness {
  readonly app: WebhookApp;
  readonly journal: MemoryDeliveryJournal;
  readonly handled: string[];
}

async function harness(framework: Framework): Promise<Harness> {
  const guard = new IdempotencyGuard(new MemoryStore(), { clock: new ManualClock(NOW_S * 1000) });
  const journal = new MemoryDeliveryJournal();
  const handled: string[] = [];
  const endpoint = (rejectionStatus?: 400 | 401) => ({
    profile: stripeProfile(),
    scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
    ...(rejectionStatus ? { rejectionStatus } : {}),
    handler: async (event: { eventId: string | null; eventType: string }) => {
      if (event.eventType === 'test.fail') throw new Error('business failure');
      handled.push(event.eventId ?? '');
      return event.eventType.startsWith('payment_intent.') ? undefined : { received: true, ignored: true };
    },
  });
  const intake: WebhookIntake = createWebhookIntake({
    guard,
    journal,
    maxBodyBytes: MAX_BODY,
    endpoints: { stripe: endpoint(), 'stripe-401': endpoint(401) },
  });
  return { app: await startWebhookApp(framework, intake), journal, handled };
}

const problem = (answer: Answer) => JSON.parse(answer.text) as { code: string; status: number };

describe.each(FRAMEWORKS)('POST /webhooks/:provider on %s: the same behaviour table', (framework) => {
  let h: Harness;
  const post = (provider: string, body: string | Uint8Array, headers: Record<string, string>) =>
    postBytes(`${h.app.url}/webhooks/${provider}`, body, headers);
  beforeAll(async () => {
    h = await harness(framework);
  });
  afterAll(() => h.app.close());

  it("verifies Stripe's test vector on the exact bytes, whatever the content type, and replays byte for byte", async () => {
    const v = vector('01-valid-basic');
    const first = await post('stripe', v.raw_body, { ...v.headers, 'content-type': 'text/plain' });
    // The vector's body has no type: authentic but unreadable by the profile → 400, not a signature failure.
    expect(first.status).toBe(400);
    expect(problem(first).code).toBe('MALFORMED_WEBHOOK_PAYLOAD');
    const body = eventBody('evt_route_1');
    const headers = { 'stripe-signature': stripeSignature(body, NOW_S) }; // no content type at all
    const ok = await post('stripe', body, headers);
    expect([ok.status, ok.text]).toEqual([200, '{"received":true}']);
    expect(ok.headers.get('content-type')).toBe('application/json');
    const again = await post('stripe', body, { ...headers, 'content-type': 'application/json' });
    expect(again.status).toBe(200);
    expect(again.bytes).toEqual(ok.bytes);
    expect(h.handled.filter((id) => id === 'evt_route_1')).toHaveLength(1);
    expect(
      h.journal
        .all()
        .filter((r) => r.eventKey === 'evt_route_1')
        .map((r) => r.decision),
    ).toEqual(['new', 'duplicate']);
  });

  it("refuses a wrong signature 400 problem+json by default, as Stripe's examples (401 where the endpoint says so)", async () => {
    const bad = vector('02-bad-signature');
    const refused = await post('stripe', bad.raw_body, bad.headers);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(problem(refused)).toMatchObject({ code: 'WEBHOOK_SIGNATURE_INVALID', status: 400 });
    const refused401 = await post('stripe-401', bad.raw_body, bad.headers);
    expect(refused401.status).toBe(401);
    expect(problem(refused401)).toMatchObject({ code: 'WEBHOOK_SIGNATURE_INVALID', status: 401 });
    const malformed = vector('07-malformed-header');
    const unparsable = await post('stripe-401', malformed.raw_body, malformed.headers);
    expect(unparsable.status).toBe(400);
    expect(problem(unparsable).code).toBe('WEBHOOK_SIGNATURE_MALFORMED');
    const reserialized = vector('09-body-reserialized');
    expect((await post('stripe-401', reserialized.raw_body, reserialized.headers)).status).toBe(401);
    expect((await post('stripe-401', eventBody('evt_route_unsigned'), {})).status).toBe(401);
    expect((await post('stripe', eventBody('evt_route_unsigned'), {})).status).toBe(400);
  });

  it('refuses a body over the limit 413 (declared or streamed), journaled, before any handler', async () => {
    const big = eventBody('evt_route_big').padEnd(MAX_BODY + 10, ' ');
    const answer = await post('stripe', big, { 'stripe-signature': stripeSignature(big, NOW_S) });
    expect(answer.status).toBe(413);
    expect(problem(answer).code).toBe('WEBHOOK_BODY_TOO_LARGE');
    // Chunked (no Content-Length): the route counts the bytes as they arrive.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 3; i++) controller.enqueue(new Uint8Array(MAX_BODY / 2).fill(32));
        controller.close();
      },
    });
    const chunked = await fetch(`${h.app.url}/webhooks/stripe`, {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { 'stripe-signature': 't=1,v1=00' },
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(h.handled).not.toContain('evt_route_big');
    expect(h.journal.all().filter((r) => r.responseStatus === 413)).toHaveLength(2);
  });

  it('answers same id with another body 422, a throwing handler 500 (then runs again), unknown provider 404', async () => {
    const first = eventBody('evt_route_2', 'payment_intent.succeeded', 100);
    expect((await post('stripe', first, { 'stripe-signature': stripeSignature(first, NOW_S) })).status).toBe(200);
    const other = eventBody('evt_route_2', 'payment_intent.succeeded', 200);
    const mismatch = await post('stripe', other, { 'stripe-signature': stripeSignature(other, NOW_S) });
    expect([mismatch.status, problem(mismatch).code]).toEqual([422, 'PAYLOAD_MISMATCH']);
    const failing = eventBody('evt_route_3', 'test.fail');
    const failed = await post('stripe', failing, { 'stripe-signature': stripeSignature(failing, NOW_S) });
    expect([failed.status, problem(failed).code]).toEqual([500, 'WEBHOOK_HANDLER_FAILED']);
    const unhandled = eventBody('evt_route_4', 'customer.created');
    const ignored = await post('stripe', unhandled, { 'stripe-signature': stripeSignature(unhandled, NOW_S) });
    expect([ignored.status, ignored.text]).toEqual([200, '{"received":true,"ignored":true}']);
    expect((await post('paypal', first, { 'stripe-signature': stripeSignature(first, NOW_S) })).status).toBe(404);
  });
});

describe('expressWebhooks behind a global express.json()', () => {
  it('refuses the parsed body 500 RAW_BODY_REQUIRED (journaled), never verifying re-serialised JSON', async () => {
    const express = (await import('express')).default;
    const { createServer } = await import('node:http');
    const { expressWebhooks } = await import('../../packages/payonce/src/webhooks/express-webhooks.js');
    const journal = new MemoryDeliveryJournal();
    const intake = createWebhookIntake({
      guard: new IdempotencyGuard(new MemoryStore(), { clock: new ManualClock(NOW_S * 1000) }),
      journal,
      endpoints: {
        stripe: { profile: stripeProfile(), scheme: stripeScheme({ secrets: [STRIPE_SECRET] }), handler: () => {} },
      },
    });
    const app = express();
    app.use(express.json()); // the mistake: parses webhook bodies before the router
    app.use(expressWebhooks(intake));
    const server = createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const body = eventBody('evt_route_parsed');
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/webhooks/stripe`;
      const answer = await postBytes(url, body, {
        'stripe-signature': stripeSignature(body, NOW_S),
        'content-type': 'application/json',
      });
      expect([answer.status, problem(answer).code]).toEqual([500, 'RAW_BODY_REQUIRED']);
      expect(journal.all().map((row) => row.decision)).toEqual(['rejected']);
    } finally {
      server.close();
    }
  });

  it('verifies the exact bytes a global express.json({ verify: keepRawBody }) kept', async () => {
    const express = (await import('express')).default;
    const { createServer } = await import('node:http');
    const { expressWebhooks, keepRawBody } = await import('../../packages/payonce/src/webhooks/express-webhooks.js');
    const handled: unknown[] = [];
    const intake = createWebhookIntake({
      guard: new IdempotencyGuard(new MemoryStore(), { clock: new ManualClock(NOW_S * 1000) }),
      endpoints: {
        stripe: {
          profile: stripeProfile(),
          scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
          handler: (event) => {
            handled.push(event.eventId);
          },
        },
      },
    });
    const app = express();
    app.use(express.json({ verify: keepRawBody })); // parses, and keeps the bytes in req.rawBody
    app.use(expressWebhooks(intake));
    const server = createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const body = eventBody('evt_route_kept'); // pretty-printed: re-serialised JSON would not verify
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/webhooks/stripe`;
      const headers = { 'stripe-signature': stripeSignature(body, NOW_S), 'content-type': 'application/json' };
      expect((await postBytes(url, body, headers)).status).toBe(200);
      const forged = body.replace('1999', '2999');
      expect((await postBytes(url, forged, headers)).status).toBe(400); // the kept bytes are what is verified
      expect(handled).toEqual(['evt_route_kept']);
    } finally {
      server.close();
    }
  });
});

describe('one-commit endpoints on stores without SQL transactions', () => {
  const endpoints = {
    stripe: {
      transaction: true as const,
      profile: stripeProfile(),
      scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
      handler: async () => {},
    },
  };

  it('are refused at construction on the memory store, with a typed error', () => {
    expect(() => createWebhookIntake({ guard: new IdempotencyGuard(new MemoryStore()), endpoints })).toThrow(
      TransactionsUnsupported,
    );
  });

  it('are refused at construction on Redis, before any delivery', async () => {
    const redis = await RedisStore.connect(process.env.PAYONCE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', {
      prefix: `payonce-test-${process.pid}-${Date.now()}:`,
    });
    try {
      expect(() => createWebhookIntake({ guard: new IdempotencyGuard(redis), endpoints })).toThrow(
        /cannot open or join a SQL transaction/,
      );
    } finally {
      await redis.close();
    }
  });
});

/**
 * Side B of the webhook-intake pair: what a careful engineer would write by hand with fastify and `pg` for the same
 * delivery, statement for statement what the reference service sends (counted with `pg-probe.ts`, 16 per new
 * delivery): verify `Stripe-Signature` with the same HMAC, claim the intake receipt (autocommit), then in one
 * transaction claim the payments receipt, locate and lock the attempt and its order, mark the order paid, enqueue
 * the fulfilment job, mark the attempt succeeded, write the payment journal row, look for parked events, complete
 * the payments receipt; commit; complete the intake receipt and write the delivery journal row (autocommit each).
 * No validation beyond what this bench's deliveries need: it is the floor, not a product.
 */
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type pg from 'pg';

const TOLERANCE_SEC = 300;

const CLAIM = `insert into payonce_receipts (provider, external_id, status, attempts, claimed_at, finished_at, created_at,
  fingerprint, response_status, response_headers, response_body, error)
  values ($1, $2, 'processing', 1, $3, null, $4, $5, null, null, null, null) on conflict (provider, external_id) do nothing`;
const COMPLETE = `update payonce_receipts set status = 'completed', finished_at = $1, response_status = $2,
  response_headers = $3, response_body = $4, error = null
  where provider = $5 and external_id = $6 and status = 'processing' and attempts = $7`;
const FIND_RECEIPT =
  'select response_status, response_body from payonce_receipts where provider = $1 and external_id = $2';
const LOCATE = 'select * from payonce_payment_attempts where provider = $1 and provider_payment_id = $2';
const LOCK_ORDER = 'select * from payonce_orders where id = $1 for update';
const LOCK_ATTEMPT = 'select * from payonce_payment_attempts where id = $1 for update';
const MARK_PAID = 'update payonce_orders set status = $1, updated_at = $2, paid_attempt_id = $3 where id = $4';
const ENQUEUE = `insert into payonce_outbox (id, topic, dedupe_key, payload, status, attempts, available_at, lease_owner,
  lease_expires_at, last_error, created_at, finished_at)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict do nothing`;
const MARK_ATTEMPT = 'update payonce_payment_attempts set updated_at = $1, status = $2 where id = $3';
const JOURNAL = `insert into payonce_payment_events (provider, event_id, event_type, status, provider_payment_id,
  merchant_reference, order_ref, amount_minor, currency, occurred_at, received_at, decision, reason, attempt_id,
  order_id, resolved_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`;
const PARKED = `select * from payonce_payment_events where decision = $1 and provider = $2
  and (merchant_reference = $3 or provider_payment_id = $4) order by received_at`;
const DELIVERY = `insert into payonce_webhook_deliveries (id, received_at, provider, event_key, event_type, signature,
  decision, outcome, response_status, error, duration_ms, object_id, payment_id, merchant_reference, amount_minor,
  currency, payload) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`;

const JSON_HEADERS = JSON.stringify({ 'content-type': 'application/json' });

/** True when `header` (`t=…,v1=…`) carries a v1 HMAC-SHA256 of `t.body` under `secret`, within the tolerance. */
function verified(header: string | undefined, body: Buffer, secret: string, nowSec: number): boolean {
  if (header === undefined) return false;
  let t: string | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const key = part.slice(0, at).trim();
    if (key === 't') t = part.slice(at + 1).trim();
    else if (key === 'v1') v1.push(part.slice(at + 1).trim());
  }
  if (t === undefined || !/^\d+$/.test(t)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  const ok = v1.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return ok && Math.abs(nowSec - Number(t)) <= TOLERANCE_SEC;
}

interface Intent {
  id: string;
  amount: number;
  currency: string;
  metadata?: { merchant_reference?: string; order_id?: string };
}

/** Applies a `payment_intent.succeeded` to its attempt and order in one transaction; the decision JSON. */
async function applySucceeded(client: pg.PoolClient, eventId: string, type: string, intent: Intent, created: number) {
  const now = Date.now();
  await client.query('begin');
  try {
    const claimed = await client.query(CLAIM, [`payments:stripe`, eventId, now, now, null]);
    if (claimed.rowCount === 0) {
      await client.query('rollback');
      return null;
    }
    const found = (await client.query(LOCATE, ['stripe', intent.id])).rows[0] as
      | { id: string; order_id: string; amount_minor: string; currency: string }
      | undefined;
    if (!found) throw new Error(`no attempt for ${intent.id}`);
    const order = (await client.query(LOCK_ORDER, [found.order_id])).rows[0] as { status: string } | undefined;
    const attempt = (await client.query(LOCK_ATTEMPT, [found.id])).rows[0] as { status: string } | undefined;
    if (!order || !attempt) throw new Error('attempt or order vanished');
    const currency = intent.currency.toUpperCase();
    const matches = Number(found.amount_minor) === intent.amount && found.currency === currency;
    const payable = matches && attempt.status === 'pending' && order.status === 'awaiting_payment';
    const decision = payable ? 'applied' : 'rejected';
    if (payable) {
      await client.query(MARK_PAID, ['paid', now, found.id, found.order_id]);
      const payload = JSON.stringify({ orderId: found.order_id, attemptId: found.id });
      await client.query(ENQUEUE, [
        randomUUID(),
        'order.fulfil',
        `order:${found.order_id}`,
        payload,
        'queued',
        0,
        now,
        null,
        null,
        null,
        now,
        null,
      ]);
      await client.query(MARK_ATTEMPT, [now, 'succeeded', found.id]);
    }
    const reference = intent.metadata?.merchant_reference ?? null;
    await client.query(JOURNAL, [
      'stripe',
      eventId,
      type,
      'succeeded',
      intent.id,
      reference,
      intent.metadata?.order_id ?? null,
      intent.amount,
      currency,
      created * 1000,
      now,
      decision,
      payable ? null : 'mismatch',
      found.id,
      found.order_id,
      now,
    ]);
    await client.query(LOCK_ATTEMPT, [found.id]);
    await client.query(PARKED, ['parked', 'stripe', reference, intent.id]);
    const result = { decision, reason: null, attemptId: found.id, orderId: found.order_id, becamePaid: payable };
    await client.query(COMPLETE, [
      Date.now(),
      200,
      JSON_HEADERS,
      Buffer.from(JSON.stringify(result)),
      'payments:stripe',
      eventId,
      1,
    ]);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  }
}

/** The hand-written fastify app: `POST /webhooks/stripe` on `pool`, verifying with `secret`. */
export function bareIntakeApp(pool: pg.Pool, secret: string): FastifyInstance {
  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1_048_576 }, (_request, body, done) =>
    done(null, body),
  );
  app.post('/webhooks/stripe', async (request, reply) => {
    const receivedAt = Date.now();
    const started = performance.now();
    const body = request.body as Buffer;
    const header = request.headers['stripe-signature'];
    if (!verified(typeof header === 'string' ? header : undefined, body, secret, Math.floor(receivedAt / 1000))) {
      return reply.code(401).send({ error: 'invalid signature' });
    }
    const event = JSON.parse(body.toString('utf8')) as {
      id: string;
      type: string;
      created: number;
      data: { object: Intent };
    };
    const fingerprint = createHash('sha256').update(body).digest('hex');
    const claimed = await pool.query(CLAIM, ['stripe', event.id, receivedAt, receivedAt, fingerprint]);
    if (claimed.rowCount === 0) {
      const stored = (await pool.query(FIND_RECEIPT, ['stripe', event.id])).rows[0] as
        | { response_status: number | null; response_body: Buffer | null }
        | undefined;
      if (!stored || stored.response_status === null) return reply.code(409).send({ error: 'in progress' });
      return reply.code(stored.response_status).type('application/json').send(stored.response_body);
    }
    const client = await pool.connect();
    let result: Awaited<ReturnType<typeof applySucceeded>>;
    try {
      result = await applySucceeded(client, event.id, event.type, event.data.object, event.created);
    } finally {
      client.release();
    }
    const answer = Buffer.from(JSON.stringify({ received: true, decision: result?.decision ?? 'duplicate' }));
    await pool.query(COMPLETE, [Date.now(), 200, JSON_HEADERS, answer, 'stripe', event.id, 1]);
    const intent = event.data.object;
    await pool.query(DELIVERY, [
      randomUUID(),
      receivedAt,
      'stripe',
      event.id,
      event.type,
      'valid',
      'new',
      'completed',
      200,
      null,
      Math.round(performance.now() - started),
      intent.id,
      intent.id,
      intent.metadata?.merchant_reference ?? null,
      intent.amount,
      intent.currency.toUpperCase(),
      JSON.stringify(event),
    ]);
    return reply.code(200).type('application/json').send(answer);
  });
  return app;
}

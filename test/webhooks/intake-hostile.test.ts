import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { DeliveryRecord } from '../../packages/payonce/src/webhooks/journal/delivery-record.js';
import type { BackendName } from '../contract/backend.js';
import { standardHeaders, stripeHeaders } from './intake-deliveries.js';
import { type IntakeWorld, send, startIntakeWorld } from './intake-support.js';

/** Every backend: the over-long fields differed by dialect (issue 11 item 3). */
const BACKENDS: BackendName[] = (process.env.PAYONCE_BACKENDS ?? 'memory,sqlite,postgres,mysql')
  .split(',')
  .map((name) => name.trim())
  .filter((name): name is BackendName => ['memory', 'sqlite', 'postgres', 'mysql'].includes(name));

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');
const nowSec = () => Math.floor(Date.now() / 1000);
/** `{"x":[[[…]]]}` nested `depth` levels deep. */
const deepBody = (depth: number) => utf8(`{"id":"evt_deep","x":${'['.repeat(depth)}${']'.repeat(depth)}}`);

function paymentSucceeded(fields: { id?: string; type?: string; pi?: string; reference?: string }): Uint8Array {
  return utf8(
    JSON.stringify({
      id: fields.id ?? `evt_${randomUUID().replaceAll('-', '')}`,
      object: 'event',
      type: fields.type ?? 'payment_intent.succeeded',
      created: nowSec(),
      data: {
        object: {
          id: fields.pi ?? `pi_${randomUUID().replaceAll('-', '')}`,
          object: 'payment_intent',
          amount: 1000,
          currency: 'usd',
          metadata: { merchant_reference: fields.reference ?? 'order-1' },
        },
      },
    }),
  );
}

async function journalRows(world: IntakeWorld, reference: string): Promise<DeliveryRecord[]> {
  return world.journal.forPayment(reference);
}

for (const backend of BACKENDS) {
  describe(`${backend}: hostile webhook bodies (issue 11 items 2, 3)`, () => {
    let world: IntakeWorld;
    const records: DeliveryRecord[] = [];
    const journalErrors: unknown[] = [];
    beforeAll(async () => {
      world = await startIntakeWorld(backend);
      world.intake.on('delivery', ({ record }) => records.push(record));
      world.intake.on('journal-error', ({ error }) => journalErrors.push(error));
    });
    afterAll(async () => {
      await world?.close();
    });

    it('unsigned JSON nested 3 000 deep: 401 on both JSON endpoints, journaled, no 500', async () => {
      const before = records.length;
      for (const path of ['/webhooks/stripe', '/webhooks/standard-webhooks']) {
        const reply = await send(`${world.url}${path}`, deepBody(3_000), { 'content-type': 'application/json' });
        expect([400, 401]).toContain(reply.status);
      }
      const rows = records.slice(before);
      expect(rows).toHaveLength(2);
      expect(rows.every((r) => r.decision === 'rejected' && r.payload === null)).toBe(true);
      expect(journalErrors).toEqual([]);
    });

    it('a signed body nested deeper than the limit: 400 MALFORMED_WEBHOOK_PAYLOAD, no receipt, no handler run', async () => {
      const body = deepBody(3_000);
      const before = records.length;
      const reply = await send(`${world.url}/webhooks/stripe`, body, stripeHeaders(body, nowSec()));
      expect(reply.status).toBe(400);
      expect(reply.json()).toMatchObject({ code: 'MALFORMED_WEBHOOK_PAYLOAD' });
      expect(await world.guard.find(new RequestKey('stripe', 'evt_deep'))).toBeNull();
      expect(world.handled).toHaveLength(0);
      expect(records.slice(before)).toMatchObject([{ decision: 'rejected', responseStatus: 400 }]);
      expect(journalErrors).toEqual([]);
    });

    it('a signed body nested 60 deep (under the limit) is handled and journaled', async () => {
      const id = `evt_${randomUUID().replaceAll('-', '')}`;
      const body = utf8(
        `{"id":"${id}","type":"noise","created":${nowSec()},"data":{"object":{"id":"x_1","deep":${'['.repeat(56)}${']'.repeat(56)}}}}`,
      );
      const reply = await send(`${world.url}/webhooks/stripe`, body, stripeHeaders(body, nowSec()));
      expect(reply.status).toBe(200);
      expect((await world.guard.find(new RequestKey('stripe', id)))?.status).toBe('completed');
      expect(journalErrors).toEqual([]);
    });

    for (const [label, fields, field] of [
      ['payment id of 201 characters', { pi: `pi_${'a'.repeat(198)}` }, /objectId|paymentId/],
      ['merchant reference of 201 characters', { reference: 'r'.repeat(201) }, /merchantReference/],
      ['event type of 161 characters', { type: `payment_intent.${'s'.repeat(146)}` }, /eventType/],
      ['event id of 161 characters', { id: `evt_${'e'.repeat(157)}` }, /\bid\b|eventId/],
    ] as const) {
      it(`an authentic delivery with a ${label}: 400 MALFORMED_WEBHOOK_PAYLOAD before any write, journaled`, async () => {
        const reference = `ref-${randomUUID()}`;
        const body = paymentSucceeded({ reference, ...fields });
        const event = JSON.parse(Buffer.from(body).toString()) as { id: string };
        const before = records.length;
        const runsBefore = world.handled.length;
        const reply = await send(`${world.url}/webhooks/stripe`, body, stripeHeaders(body, nowSec()));
        expect(reply.status).toBe(400);
        expect(reply.json()).toMatchObject({ code: 'MALFORMED_WEBHOOK_PAYLOAD' });
        expect((reply.json() as { detail: string }).detail, reply.text()).toMatch(field);
        if (event.id.length <= 160) expect(await world.guard.find(new RequestKey('stripe', event.id))).toBeNull();
        expect(world.handled.length).toBe(runsBefore);
        expect(records.slice(before)).toMatchObject([{ decision: 'rejected', responseStatus: 400 }]);
        expect(journalErrors).toEqual([]);
      });
    }

    it('the journal keeps ids readable but redacts a card number inside them or standing alone (#11, #34 item 12)', async () => {
      const reference = `ref-${randomUUID()}`;
      const prefix = `evt_${randomUUID().slice(0, 8)}_`;
      const id = `${prefix}4242424242424242`;
      const body = utf8(
        JSON.stringify({
          id,
          object: 'event',
          type: 'payment_intent.processing',
          created: nowSec(),
          data: {
            object: {
              id: 'pi_4242424242424242',
              object: 'payment_intent',
              metadata: { merchant_reference: reference, note: 'paid with 4242 4242 4242 4242' },
            },
          },
        }),
      );
      const reply = await send(`${world.url}/webhooks/stripe`, body, stripeHeaders(body, nowSec()));
      expect(reply.status).toBe(200);
      const [row] = await journalRows(world, reference);
      expect(row?.eventKey).toBe(`${prefix}[REDACTED]`);
      expect(row?.payload).toContain(`${prefix}[REDACTED]`);
      expect(row?.payload).toContain('"pi_[REDACTED]"');
      expect(row?.payload).not.toContain('4242');
      expect(row?.payload).toContain('paid with [REDACTED]');
    });

    it('an acknowledged delivery always has its journal row; a journal that cannot write turns the answer into 503', async () => {
      const reference = `ref-${randomUUID()}`;
      const body = paymentSucceeded({ reference });
      const ok = await send(`${world.url}/webhooks/stripe`, body, stripeHeaders(body, nowSec()));
      expect(ok.status).toBe(200);
      expect(await journalRows(world, reference)).toHaveLength(1);
      const journal = world.journal as { record: (typeof world.journal)['record'] };
      const original = journal.record;
      journal.record = async () => {
        throw new Error('journal down');
      };
      try {
        const second = paymentSucceeded({ reference });
        const refused = await send(`${world.url}/webhooks/stripe`, second, stripeHeaders(second, nowSec()));
        expect(refused.status).toBe(503);
        expect(refused.json()).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      } finally {
        journal.record = original;
        journalErrors.length = 0;
      }
    });
  });
}

describe('memory: 20 parallel 2 MiB nested bodies cost O(bytes) each (issue 11 item 2)', () => {
  let world: IntakeWorld;
  beforeAll(async () => {
    world = await startIntakeWorld('memory', { maxBodyBytes: 2_200_000 });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('all refused and journaled, never parsed: signed and unsigned, Stripe and Standard Webhooks', async () => {
    const depth = 1_048_000;
    const body = utf8(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    const records: DeliveryRecord[] = [];
    world.intake.on('delivery', ({ record }) => records.push(record));
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const headers =
          i % 4 === 0
            ? stripeHeaders(body, nowSec())
            : i % 4 === 1
              ? standardHeaders('standard-webhooks', body, nowSec(), `msg_${i}`)
              : { 'content-type': 'application/json' };
        return send(`${world.url}/webhooks/${i % 2 === 0 ? 'stripe' : 'standard-webhooks'}`, body, headers);
      }),
    );
    expect(replies.map((r) => r.status).every((s) => s === 400 || s === 401)).toBe(true);
    expect(records).toHaveLength(20);
    expect(records.every((r) => r.payload === null && r.decision === 'rejected')).toBe(true);
  });
});

import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../packages/sandbox/src/webhook-signer.js';
import { backendsFromEnv } from '../contract/backends/index.js';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { call, deliver, type Harness, orderAndCheckout, startHarness, stripeIntentEvent } from './service-harness.js';

const selected = new Set<string>(backendsFromEnv());
const DIALECTS = (['sqlite', 'postgres', 'mysql'] as const).filter((d) => selected.has(d));

async function harnessOn(dialect: (typeof DIALECTS)[number]): Promise<Harness> {
  if (dialect === 'sqlite') return startHarness();
  const ns = dialect === 'postgres' ? await createPostgresNamespace() : await createMysqlNamespace();
  return startHarness({ databaseUrl: ns.url, dropDatabase: ns.drop });
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: the reference service against over-long fields and deep bodies (issue 11 items 2, 3)`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await harnessOn(dialect);
    });
    afterAll(async () => {
      await h?.close();
    });

    /** Journal rows answered 400: a refused delivery's row carries no event fields (none were storable). */
    const refusedRows = async () =>
      Number(
        (
          await sql<{ n: number | string }>`select count(*) as n from payonce_webhook_deliveries
            where response_status = 400`.execute(h.service.context.store.db)
        ).rows[0]?.n,
      );

    for (const [label, overrides] of [
      ['payment id of 201 characters', { paymentId: `pi_${'x'.repeat(198)}` }],
      ['merchant reference of 201 characters', { merchantReference: 'm'.repeat(201) }],
      ['event type of 161 characters', { type: `payment_intent.${'s'.repeat(146)}` }],
      ['NUL character in the payment id', { paymentId: 'pi_nul\u0000id' }],
      ['NUL character in the event type', { type: 'payment_intent.succeeded\u0000' }],
      ['NUL character in the merchant reference', { merchantReference: 'ref\u0000x' }],
      ['lone surrogate in the payment id', { paymentId: 'pi_\ud800x' }],
    ] as const) {
      it(`a signed payment_intent.succeeded with a ${label}: 400 MALFORMED_WEBHOOK_PAYLOAD, no receipt, journaled`, async () => {
        const { checkout } = await orderAndCheckout(h.service.url);
        const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
        const event = {
          eventId,
          type: 'payment_intent.succeeded',
          paymentId: 'pi_long_fields',
          merchantReference: checkout.body.attempt?.id ?? 'attempt-x',
          amountMinor: 1999,
          currency: 'EUR',
        };
        const body = stripeIntentEvent({ ...event, ...overrides });
        const before = await refusedRows();
        const headers = signedHeaders(h.sandbox.controls.signing(), eventId, body, Math.floor(Date.now() / 1000));
        const answer = await deliver(h.service.url, 'stripe', body, headers);
        expect(answer.status, answer.text).toBe(400);
        expect(JSON.parse(answer.text)).toMatchObject({ code: 'MALFORMED_WEBHOOK_PAYLOAD' });
        const receipts = await sql<{ n: number | string }>`select count(*) as n from payonce_receipts
          where external_id = ${dialect === 'mysql' ? Buffer.from(eventId) : eventId}`.execute(
          h.service.context.store.db,
        );
        expect(Number(receipts.rows[0]?.n)).toBe(0);
        expect(await refusedRows()).toBe(before + 1);
      });
    }

    it('a signed payment_intent.succeeded with non-ASCII payment id and event id: applied once, journaled as sent', async () => {
      const { orderId, checkout } = await orderAndCheckout(h.service.url);
      const eventId = `evt_é😀_${randomUUID().replaceAll('-', '')}`;
      const paymentId = `pi_ü€😀_${randomUUID().slice(0, 8)}`;
      const body = stripeIntentEvent({
        eventId,
        type: 'payment_intent.succeeded',
        paymentId,
        merchantReference: checkout.body.attempt?.id ?? 'attempt-x',
        amountMinor: 1999,
        currency: 'EUR',
      });
      const headers = signedHeaders(h.sandbox.controls.signing(), eventId, body, Math.floor(Date.now() / 1000));
      const answer = await deliver(h.service.url, 'stripe', body, headers);
      expect(answer.status, answer.text).toBe(200);
      const view = await call<{ journal: { eventId: string; paymentId?: string }[] }>(
        h.service.url,
        'GET',
        `/orders/${orderId}`,
      );
      expect(view.body.journal.map((e) => e.eventId)).toContain(eventId);
      const rows = await sql<{ payment_id: string }>`select payment_id from payonce_webhook_deliveries
        where payment_id = ${paymentId}`.execute(h.service.context.store.db);
      expect(rows.rows).toHaveLength(1);
    });

    it('20 parallel 2 MiB nested bodies, signed and unsigned: each refused 400/401, /healthz keeps answering 200', async () => {
      const depth = 1_040_000;
      const body = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const signing = h.sandbox.controls.signing();
      const now = Math.floor(Date.now() / 1000);
      const deliveries = Array.from({ length: 20 }, (_, i) =>
        deliver(
          h.service.url,
          'stripe',
          body,
          i % 2 === 0 ? signedHeaders(signing, `evt_deep_${i}`, body, now) : { 'content-type': 'application/json' },
        ),
      );
      const health = await call(h.service.url, 'GET', '/healthz', { customer: null });
      const answers = await Promise.all(deliveries);
      expect(answers.map((a) => a.status).every((s) => s === 400 || s === 401)).toBe(true);
      expect(health.status).toBe(200);
    });
  });
}

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../packages/sandbox/src/webhook-signer.js';
import { SANDBOX_API_KEY } from '../../packages/sandbox/src/wire/api-key.js';
import { backendsFromEnv } from '../contract/backends/index.js';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import {
  call,
  deliver,
  type Harness,
  orderAndCheckout,
  startHarness,
  until,
  untilFulfilled,
  type ViewBody,
} from './service-harness.js';

// Issue #34 item 1: Stripe (and the sandbox) send `charge.refunded` for partial refunds too, with the charge's
// cumulative `amount_refunded`. A partial refund is journaled and the order stays paid and is fulfilled; only the
// whole amount refunds the order; refunds past the captured amount are alerted.

const selected = new Set<string>(backendsFromEnv());
const DIALECTS = (['sqlite', 'postgres', 'mysql'] as const).filter((d) => d === 'sqlite' || selected.has(d));

async function harnessOn(dialect: (typeof DIALECTS)[number]): Promise<Harness> {
  // The fulfilment waits a little, so a refund usually lands while the order is still `paid` (either way the
  // assertions hold: a partial refund never refunds the order, whatever its status).
  const options = { fulfilDelayMs: 1_000 };
  if (dialect === 'sqlite') return startHarness(options);
  const ns = dialect === 'postgres' ? await createPostgresNamespace() : await createMysqlNamespace();
  return startHarness({ ...options, databaseUrl: ns.url, dropDatabase: ns.drop });
}

/** `POST /v1/refunds` on the sandbox (Stripe's API): `amount` minor units, or the rest when omitted. */
async function refund(h: Harness, paymentIntent: string, amount?: number): Promise<void> {
  const response = await fetch(`${h.sandbox.url}/v1/refunds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SANDBOX_API_KEY}` },
    body: JSON.stringify(
      amount === undefined ? { payment_intent: paymentIntent } : { payment_intent: paymentIntent, amount },
    ),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

const view = async (h: Harness, orderId: string) =>
  (await call<ViewBody>(h.service.url, 'GET', `/orders/${orderId}`)).body;

async function paidOrder(h: Harness) {
  const { orderId, checkout } = await orderAndCheckout(h.service.url, 5000, 'EUR');
  const attemptId = checkout.body.attempt?.id ?? '';
  const paymentId = await until(
    async () => {
      const v = await view(h, orderId);
      return v.order.paidAttemptId === null ? null : v.attempts.find((a) => a.id === attemptId)?.providerPaymentId;
    },
    15_000,
    'the order to be paid',
  );
  return { orderId, attemptId, paymentId };
}

const refundEntries = (v: ViewBody) => v.journal.filter((e) => e.status === 'refunded');

for (const dialect of DIALECTS) {
  describe(`${dialect}: partial refunds (issue #34 item 1)`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await harnessOn(dialect);
    });
    afterAll(async () => {
      await h?.close();
    });

    it('refunding 1.00 of a paid 50.00 order journals it and still fulfils the order; refunding the rest refunds it', async () => {
      const { orderId, paymentId } = await paidOrder(h);
      await refund(h, paymentId, 100);
      await until(async () => refundEntries(await view(h, orderId)).length === 1, 15_000, 'the partial refund');
      const fulfilled = await untilFulfilled(h.service.url, orderId, 'customer-a', 15_000);
      expect(fulfilled.order.status).toBe('completed');
      expect(fulfilled.fulfilments).toHaveLength(1);
      expect(fulfilled.refunds).toHaveLength(0);
      expect(fulfilled.attempts.map((a) => (a as { refundedMinor?: number }).refundedMinor)).toEqual([100]);
      expect(refundEntries(fulfilled)).toEqual([
        expect.objectContaining({ decision: 'applied', reason: expect.stringMatching(/^partial refund: 100 of 5000/) }),
      ]);

      await refund(h, paymentId);
      const refunded = await until(
        async () => {
          const v = await view(h, orderId);
          const done = v.jobs.some((j) => j.topic === 'order.refunded' && j.status === 'done');
          return v.order.status === 'refunded' && done ? v : null;
        },
        15_000,
        'the full refund',
      );
      expect(refunded.fulfilments).toHaveLength(1);
      expect(refunded.refunds).toHaveLength(1);
      expect(refunded.attempts.map((a) => (a as { refundedMinor?: number }).refundedMinor)).toEqual([5000]);
      expect(refundEntries(refunded).map((e) => e.decision)).toEqual(['applied', 'applied']);
    });

    it('a signed charge.refunded reporting more than was captured refunds the order and is alerted', async () => {
      const { orderId, attemptId, paymentId } = await paidOrder(h);
      const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
      const body = JSON.stringify({
        id: eventId,
        object: 'event',
        created: Math.floor(Date.now() / 1000),
        type: 'charge.refunded',
        data: {
          object: {
            id: `ch_${randomUUID().slice(0, 8)}`,
            object: 'charge',
            amount: 5000,
            amount_refunded: 6000,
            refunded: true,
            currency: 'eur',
            status: 'succeeded',
            payment_intent: paymentId,
            metadata: { merchant_reference: attemptId, order_id: orderId },
          },
        },
      });
      const headers = signedHeaders(h.sandbox.controls.signing(), eventId, body, Math.floor(Date.now() / 1000));
      const answer = await deliver(h.service.url, 'stripe', body, headers);
      expect(answer.status, answer.text).toBe(200);
      const v = await view(h, orderId);
      expect(v.order.status).toBe('refunded');
      expect(refundEntries(v)).toEqual([
        expect.objectContaining({
          decision: 'applied',
          reason: expect.stringMatching(/^refunds exceed the captured amount/),
        }),
      ]);
      const metrics = await (await fetch(`${h.service.url}/metrics`)).text();
      expect(metrics).toMatch(/payonce_payment_alerts_total(\{[^}]*\})? [1-9]/);
    });
  });
}

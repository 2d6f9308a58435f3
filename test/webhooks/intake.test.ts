import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { DeliveryRecord } from '../../packages/payonce/src/webhooks/journal/delivery-record.js';
import { clickProfile } from '../../packages/payonce/src/webhooks/providers/click-profile.js';
import { githubProfile } from '../../packages/payonce/src/webhooks/providers/github-profile.js';
import { paymeProfile } from '../../packages/payonce/src/webhooks/providers/payme-profile.js';
import type { ProviderProfile } from '../../packages/payonce/src/webhooks/providers/provider-event.js';
import { standardWebhooksProfile } from '../../packages/payonce/src/webhooks/providers/standard-webhooks-profile.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { yookassaProfile } from '../../packages/payonce/src/webhooks/providers/yookassa-profile.js';
import { type Delivery, payloadDeliveries, paymeHeaders, paymeRpcs, stripeHeaders } from './intake-deliveries.js';
import { type EndpointName, type IntakeWorld, send, startIntakeWorld, WEBHOOK_BACKENDS } from './intake-support.js';

/** Independent profiles, to know which key and references a delivery must be journaled under. */
const profiles: Record<EndpointName, ProviderProfile> = {
  stripe: stripeProfile(),
  'standard-webhooks': standardWebhooksProfile(),
  svix: standardWebhooksProfile({ provider: 'svix' }),
  github: githubProfile(),
  payme: paymeProfile(),
  click: clickProfile(),
  yookassa: yookassaProfile(),
};

const decisionsOf = (rows: DeliveryRecord[]) => rows.map((r) => r.decision);

for (const backend of WEBHOOK_BACKENDS) {
  describe(`${backend}: webhook intake over fastify on loopback`, () => {
    let world: IntakeWorld;
    beforeAll(async () => {
      world = await startIntakeWorld(backend);
    });
    afterAll(async () => {
      await world?.close();
    });
    const endpointUrl = (endpoint: string) => `${world.url}/webhooks/${endpoint}`;
    const nowSec = () => Math.floor(world.clock.now() / 1000);

    it('takes every payload fixture once, journals it as new, and replays the stored bytes to a duplicate', async () => {
      const deliveries: Delivery[] = payloadDeliveries(nowSec());
      expect(deliveries.length).toBeGreaterThanOrEqual(10);
      for (const delivery of deliveries) {
        const event = profiles[delivery.endpoint].extract({ rawBody: delivery.body, headers: delivery.headers });
        const key = event.key;
        expect(key, delivery.source).not.toBeNull();
        const first = await send(endpointUrl(delivery.endpoint), delivery.body, delivery.headers);
        expect(first.status, delivery.source).toBe(200);
        const again = await send(endpointUrl(delivery.endpoint), delivery.body, delivery.headers);
        expect(again.status, delivery.source).toBe(200);
        expect(again.bytes, delivery.source).toEqual(first.bytes);
        expect(world.runs.get(key!.toString()), delivery.source).toBe(1);
        const receipt = await world.guard.find(key!);
        expect(receipt?.status, delivery.source).toBe('completed');
        const reference = event.objectId ?? event.paymentId ?? event.merchantReference;
        if (reference !== null) {
          const rows = (await world.journal.forPayment(reference)).filter((r) => r.eventKey === key!.externalId);
          expect(decisionsOf(rows), delivery.source).toEqual(['new', 'duplicate']);
          expect(rows.map((r) => r.signature)).toEqual(['valid', 'valid']);
          expect(rows[0]).toMatchObject({
            provider: event.provider,
            eventType: event.eventType,
            outcome: 'completed',
            responseStatus: 200,
            objectId: event.objectId,
            paymentId: event.paymentId,
            merchantReference: event.merchantReference,
            amountMinor: event.amountMinor,
            currency: event.currency,
            error: null,
          });
          expect(rows[1]?.outcome).toBe('replayed');
        }
      }
    });

    it('answers the Payme RPC fixtures as JSON-RPC with HTTP 200, replaying mutations under the new request id', async () => {
      const rpcs = paymeRpcs();
      expect(rpcs.map((r) => r.method).sort()).toEqual(
        expect.arrayContaining([
          'CancelTransaction',
          'CheckPerformTransaction',
          'CreateTransaction',
          'PerformTransaction',
        ]),
      );
      for (const rpc of rpcs) {
        const reply = await send(endpointUrl('payme'), rpc.body, paymeHeaders());
        expect(reply.status, rpc.source).toBe(200);
        const answer = reply.json() as { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number } };
        expect(answer.jsonrpc).toBe('2.0');
        if (!rpc.complete) {
          // The docs excerpt of CreateTransaction stops before `amount`: the profile cannot read it.
          expect(answer.error?.code, rpc.source).toBe(-32600);
          continue;
        }
        expect(answer.result, rpc.source).toMatchObject({ state: 1 });
        const event = profiles.payme.extract({ rawBody: rpc.body });
        if (event.key === null) {
          // Read-only method: answered from current state every time, never from a receipt.
          const before = world.runs.get(`payme/${rpc.method}`) ?? 0;
          await send(endpointUrl('payme'), rpc.body, paymeHeaders());
          expect(world.runs.get(`payme/${rpc.method}`)).toBe(before + 1);
          continue;
        }
        const parsed = JSON.parse(new TextDecoder().decode(rpc.body)) as Record<string, unknown>;
        const renumbered = new TextEncoder().encode(JSON.stringify({ ...parsed, id: 4242 }));
        const again = await send(endpointUrl('payme'), renumbered, paymeHeaders());
        const replayed = again.json() as { id: unknown; result: unknown };
        expect(replayed.id).toBe(4242);
        expect(replayed.result, rpc.source).toEqual(answer.result);
        expect(world.runs.get(event.key.toString())).toBe(1);
      }
    });

    it('answers "all deliveries for payment X" by object id, payment id and merchant reference', async () => {
      const body = new TextEncoder().encode(
        JSON.stringify({
          id: `evt_${backend}_lookup`,
          object: 'event',
          type: 'payment_intent.succeeded',
          created: nowSec(),
          data: {
            object: {
              id: `pi_${backend}_lookup`,
              object: 'payment_intent',
              amount: 1999,
              currency: 'eur',
              metadata: { merchant_reference: `order-${backend}-lookup` },
            },
          },
        }),
      );
      const refund = new TextEncoder().encode(
        JSON.stringify({
          id: `evt_${backend}_lookup_refund`,
          object: 'event',
          type: 'charge.refunded',
          created: nowSec(),
          data: {
            object: {
              id: `ch_${backend}_lookup`,
              object: 'charge',
              amount: 1999,
              currency: 'eur',
              payment_intent: `pi_${backend}_lookup`,
            },
          },
        }),
      );
      expect((await send(endpointUrl('stripe'), body, stripeHeaders(body, nowSec()))).status).toBe(200);
      expect((await send(endpointUrl('stripe'), body, stripeHeaders(body, nowSec()))).status).toBe(200);
      expect((await send(endpointUrl('stripe'), refund, stripeHeaders(refund, nowSec()))).status).toBe(200);
      const byPayment = await world.journal.forPayment(`pi_${backend}_lookup`);
      expect(byPayment.map((r) => [r.eventType, r.decision])).toEqual([
        ['payment_intent.succeeded', 'new'],
        ['payment_intent.succeeded', 'duplicate'],
        ['charge.refunded', 'new'],
      ]);
      expect(decisionsOf(await world.journal.forPayment(`order-${backend}-lookup`))).toEqual(['new', 'duplicate']);
      expect(
        decisionsOf(await world.journal.forPayment({ reference: `ch_${backend}_lookup`, provider: 'stripe' })),
      ).toEqual(['new']);
      expect(await world.journal.forPayment({ reference: `pi_${backend}_lookup`, provider: 'payme' })).toEqual([]);
      expect(world.runs.get(new RequestKey('stripe', `evt_${backend}_lookup`).toString())).toBe(1);
    });
  });
}

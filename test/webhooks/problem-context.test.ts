import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { IntakeEvents } from '../../packages/payonce/src/webhooks/intake-events.js';
import { WEBHOOK_PROBLEMS } from '../../packages/payonce/src/webhooks/webhook-problems.js';
import { bodyBytes } from './fixtures.js';
import { stripeHeaders } from './intake-deliveries.js';
import { type IntakeWorld, send, startIntakeWorld, WEBHOOK_BACKENDS } from './intake-support.js';

type DeliveryRecord = IntakeEvents['delivery']['record'];

// Issue #11 items 10 and 11: a webhook has no Idempotency-Key, so its problems must not talk about one; and the
// journal's (and so the log's) error text names the code once, not `PAYLOAD_MISMATCH: PAYLOAD_MISMATCH: …`.
describe('webhook problem titles', () => {
  it('no title of the intake speaks of an Idempotency-Key', () => {
    const titles = Object.values(WEBHOOK_PROBLEMS).map((definition) => definition.title);
    expect(titles.filter((title) => /idempotency/i.test(title))).toEqual([]);
  });
});

for (const backend of WEBHOOK_BACKENDS) {
  describe(`${backend}: webhook problems in the words of a delivery, error text without a repeated code`, () => {
    let world: IntakeWorld;
    const records: DeliveryRecord[] = [];
    beforeAll(async () => {
      world = await startIntakeWorld(backend);
      world.intake.on('delivery', ({ record }) => records.push(record));
    });
    afterAll(async () => {
      await world?.close();
    });
    const url = () => `${world.url}/webhooks/stripe`;
    const nowSec = () => Math.floor(world.clock.now() / 1000);
    const event = (id: string, amount = 500) =>
      bodyBytes(
        JSON.stringify({
          id,
          object: 'event',
          type: 'payment_intent.succeeded',
          created: nowSec(),
          data: { object: { id: `pi_${id}`, object: 'payment_intent', amount, currency: 'usd' } },
        }),
      );
    const rowsOf = (id: string) => records.filter((record) => record.eventKey === id);

    it('422: the event id was first delivered with another body; the journal names PAYLOAD_MISMATCH once', async () => {
      const id = `evt_ctx_mismatch_${backend}`;
      const first = event(id);
      expect((await send(url(), first, stripeHeaders(first, nowSec()))).status).toBe(200);
      const other = event(id, 1);
      const reply = await send(url(), other, stripeHeaders(other, nowSec()));
      expect(reply.status).toBe(422);
      const body = reply.json() as { title: string; code: string };
      expect(body.code).toBe('PAYLOAD_MISMATCH');
      expect(body.title).toBe(WEBHOOK_PROBLEMS.PAYLOAD_MISMATCH.title);
      expect(body.title).not.toMatch(/idempotency/i);
      const rejected = rowsOf(id).find((record) => record.decision === 'rejected');
      expect(rejected?.error).toMatch(/^PAYLOAD_MISMATCH: receipt stripe\//);
      expect(rejected?.error?.split('PAYLOAD_MISMATCH')).toHaveLength(2);
      const journaled = await world.journal.forPayment(`pi_${id}`);
      expect(journaled.map((row) => row.error?.split('PAYLOAD_MISMATCH').length ?? 0)).toEqual([0, 2]);
    });

    it('409: the same event is still being handled, said without an Idempotency-Key', async () => {
      const id = `evt_ctx_busy_${backend}`;
      const key = new RequestKey('stripe', id).toString();
      let open: () => void = () => {};
      world.behaviour.gates.set(key, new Promise<void>((resolve) => (open = resolve)));
      const body = event(id);
      const headers = stripeHeaders(body, nowSec());
      const first = send(url(), body, headers);
      while ((world.runs.get(key) ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const busy = await send(url(), body, headers);
      open();
      expect((await first).status).toBe(200);
      expect(busy.status).toBe(409);
      const problem = busy.json() as { title: string; code: string };
      expect(problem).toMatchObject({ code: 'REQUEST_IN_PROGRESS', title: WEBHOOK_PROBLEMS.REQUEST_IN_PROGRESS.title });
      expect(problem.title).not.toMatch(/idempotency/i);
      const deferred = rowsOf(id).find((record) => record.decision === 'in-progress');
      expect(deferred?.error?.split('REQUEST_IN_PROGRESS')).toHaveLength(2);
    });
  });
}

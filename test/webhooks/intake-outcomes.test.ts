import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import type { IntakeEvents } from '../../packages/payonce/src/webhooks/intake-events.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { bodyBytes, readFixture, type Vector } from './fixtures.js';
import { paymeHeaders, standardHeaders, stripeHeaders } from './intake-deliveries.js';
import { DEFAULT_SECRETS, type IntakeWorld, send, startIntakeWorld, WEBHOOK_BACKENDS } from './intake-support.js';

type DeliveryRecord = IntakeEvents['delivery']['record'];

for (const backend of WEBHOOK_BACKENDS) {
  describe(`${backend}: webhook intake outcomes (in progress, failure, mismatch, decline, provider answers)`, () => {
    let world: IntakeWorld;
    const records: DeliveryRecord[] = [];
    beforeAll(async () => {
      world = await startIntakeWorld(backend);
      world.intake.on('delivery', ({ record }) => records.push(record));
    });
    afterAll(async () => {
      await world?.close();
    });
    const endpointUrl = (endpoint: string) => `${world.url}/webhooks/${endpoint}`;
    const nowSec = () => Math.floor(world.clock.now() / 1000);
    const stripeEvent = (id: string, extra: Record<string, unknown> = {}) =>
      bodyBytes(
        JSON.stringify({
          id,
          object: 'event',
          type: 'payment_intent.succeeded',
          created: nowSec(),
          data: { object: { id: `pi_${id}`, object: 'payment_intent', amount: 500, currency: 'usd', ...extra } },
        }),
      );
    const lastFor = (eventKey: string) => records.filter((r) => r.eventKey === eventKey);

    it('answers 409 with Retry-After while another delivery of the same event runs, then replays its result', async () => {
      const id = `evt_slow_${backend}`;
      const key = new RequestKey('stripe', id).toString();
      let open: () => void = () => {};
      world.behaviour.gates.set(
        key,
        new Promise<void>((resolve) => {
          open = resolve;
        }),
      );
      const body = stripeEvent(id);
      const headers = stripeHeaders(body, nowSec());
      const first = send(endpointUrl('stripe'), body, headers);
      while ((world.runs.get(key) ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const parallel = await Promise.all([1, 2, 3].map(() => send(endpointUrl('stripe'), body, headers)));
      for (const reply of parallel) {
        expect(reply.status).toBe(409);
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(reply.json()).toMatchObject({ code: 'REQUEST_IN_PROGRESS' });
      }
      open();
      const done = await first;
      expect(done.status).toBe(200);
      const replay = await send(endpointUrl('stripe'), body, headers);
      expect(replay.bytes).toEqual(done.bytes);
      expect(world.runs.get(key)).toBe(1);
      expect(
        lastFor(id)
          .map((r) => r.decision)
          .sort(),
      ).toEqual(['duplicate', 'in-progress', 'in-progress', 'in-progress', 'new'].sort());
      expect(lastFor(id).filter((r) => r.decision === 'in-progress')).toEqual(
        Array(3).fill(expect.objectContaining({ outcome: 'deferred', responseStatus: 409 })),
      );
    });

    it('answers 500 when the handler throws, marks the receipt failed, and runs again on redelivery', async () => {
      const id = `evt_fail_${backend}`;
      const key = new RequestKey('stripe', id);
      world.behaviour.failOnce.add(key.toString());
      const body = stripeEvent(id);
      const failed = await send(endpointUrl('stripe'), body, stripeHeaders(body, nowSec()));
      expect(failed.status).toBe(500);
      expect(failed.json()).toMatchObject({ code: 'WEBHOOK_HANDLER_FAILED' });
      expect(failed.text()).not.toContain('person@example.com');
      expect((await world.guard.find(key))?.status).toBe('failed');
      const retried = await send(endpointUrl('stripe'), body, stripeHeaders(body, nowSec()));
      expect(retried.status).toBe(200);
      expect(world.runs.get(key.toString())).toBe(2);
      expect((await world.guard.find(key))?.status).toBe('completed');
      const rows = await world.journal.forPayment(`pi_${id}`);
      expect(rows.map((r) => [r.decision, r.outcome, r.responseStatus])).toEqual([
        ['new', 'failed', 500],
        ['new', 'completed', 200],
      ]);
      expect(rows[0]?.error).toContain('handler exploded');
      expect(rows[0]?.error).not.toContain('person@example.com');
    });

    it('refuses the same event id with a different body with 422 and runs nothing', async () => {
      const id = `evt_mismatch_${backend}`;
      const body = stripeEvent(id);
      expect((await send(endpointUrl('stripe'), body, stripeHeaders(body, nowSec()))).status).toBe(200);
      const other = stripeEvent(id, { amount: 1 });
      const reply = await send(endpointUrl('stripe'), other, stripeHeaders(other, nowSec()));
      expect(reply.status).toBe(422);
      expect(reply.json()).toMatchObject({ code: 'PAYLOAD_MISMATCH' });
      expect(world.runs.get(`stripe/${id}`)).toBe(1);
      expect(lastFor(id).map((r) => r.decision)).toEqual(['new', 'rejected']);
    });

    it('stores a decline as the final answer: Stripe 200 with `declined`, replayed without running again', async () => {
      const id = `evt_decline_${backend}`;
      world.behaviour.declines.set(`stripe/${id}`, 'amount_mismatch');
      const body = stripeEvent(id);
      const first = await send(endpointUrl('stripe'), body, stripeHeaders(body, nowSec()));
      expect(first.status).toBe(200);
      expect(first.json()).toEqual({
        received: true,
        declined: { code: 'amount_mismatch', message: 'declined by the test handler' },
      });
      const again = await send(endpointUrl('stripe'), body, stripeHeaders(body, nowSec()));
      expect(again.bytes).toEqual(first.bytes);
      expect(world.runs.get(`stripe/${id}`)).toBe(1);
      expect(lastFor(id).map((r) => r.outcome)).toEqual(['declined', 'replayed']);
    });

    it('answers Payme declines as JSON-RPC errors with the request id, and Payme failures as -32400 for a retry', async () => {
      const perform = { method: 'PerformTransaction', params: { id: `tx-decline-${backend}` } };
      world.behaviour.declines.set(`payme/tx-decline-${backend}:PerformTransaction`, -31008);
      const reply = await send(endpointUrl('payme'), JSON.stringify({ ...perform, id: 7 }), paymeHeaders());
      expect(reply.status).toBe(200);
      expect(reply.json()).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -31008, message: 'declined by the test handler' },
      });
      const failing = { method: 'PerformTransaction', params: { id: `tx-fail-${backend}` } };
      world.behaviour.failOnce.add(`payme/tx-fail-${backend}:PerformTransaction`);
      const failed = await send(endpointUrl('payme'), JSON.stringify({ ...failing, id: 8 }), paymeHeaders());
      expect(failed.status).toBe(200);
      expect(failed.json()).toMatchObject({ jsonrpc: '2.0', id: 8, error: { code: -32400 } });
      expect(failed.json()).not.toHaveProperty('result');
      const retried = await send(endpointUrl('payme'), JSON.stringify({ ...failing, id: 9 }), paymeHeaders());
      expect(retried.json()).toMatchObject({ id: 9, result: { state: 1 } });
      const unknown = await send(
        endpointUrl('payme'),
        JSON.stringify({ method: 'Nope', params: {}, id: 10 }),
        paymeHeaders(),
      );
      expect(unknown.json()).toMatchObject({ id: 10, error: { code: -32601 } });
      const notJson = await send(endpointUrl('payme'), '{"method":', paymeHeaders());
      expect(notJson.json()).toMatchObject({ id: null, error: { code: -32700 } });
    });

    it('answers Click Prepare and Complete with the documented response fields', async () => {
      const prepare = readFixture('click/signature/01-prepare-valid.json') as Vector;
      const complete = readFixture('click/signature/02-complete-valid.json') as Vector;
      const a = await send(endpointUrl('click'), bodyBytes(prepare.raw_body), prepare.headers);
      const form = new URLSearchParams(prepare.raw_body);
      expect(a.status).toBe(200);
      expect(Object.keys(a.json() as object).sort()).toEqual(
        ['click_trans_id', 'merchant_trans_id', 'merchant_prepare_id', 'error', 'error_note'].sort(),
      );
      expect(a.json()).toMatchObject({
        click_trans_id: Number(form.get('click_trans_id')),
        merchant_trans_id: form.get('merchant_trans_id'),
        error: 0,
      });
      const b = await send(endpointUrl('click'), bodyBytes(complete.raw_body), complete.headers);
      expect(Object.keys(b.json() as object).sort()).toEqual(
        ['click_trans_id', 'merchant_trans_id', 'merchant_confirm_id', 'error', 'error_note'].sort(),
      );
      const bad = bodyBytes(prepare.raw_body.replace('action=0', 'action=7'));
      const refused = await send(endpointUrl('click'), bad, prepare.headers);
      expect(refused.status).toBe(200);
      expect((refused.json() as { error: number }).error).toBeLessThan(0);
    });

    it('answers an authentic payload the profile cannot read with 400 and journals it as rejected', async () => {
      const id = `msg_unreadable_${backend}`;
      const body = bodyBytes('{"data":{}}');
      const reply = await send(
        endpointUrl('standard-webhooks'),
        body,
        standardHeaders('standard-webhooks', body, nowSec(), id),
      );
      expect(reply.status).toBe(400);
      expect(reply.json()).toMatchObject({ code: 'MALFORMED_WEBHOOK_PAYLOAD' });
      expect(records[records.length - 1]).toMatchObject({
        signature: 'valid',
        decision: 'rejected',
        payload: '{"data":{}}',
      });
      expect(await world.guard.find(new RequestKey('standard-webhooks', id))).toBeNull();
    });

    it('treats a non-bytes body handed to the intake as an integration error (500), never as a verdict', async () => {
      const reply = await world.intake.receive({
        endpoint: 'stripe',
        rawBody: '{"id":"evt"}' as unknown as Uint8Array,
        headers: {},
      });
      expect(reply.status).toBe(500);
      expect(JSON.parse(new TextDecoder().decode(reply.body))).toMatchObject({ code: 'RAW_BODY_REQUIRED' });
      await expect(
        world.intake.receive({ endpoint: 'nobody', rawBody: new Uint8Array(0), headers: {} }),
      ).rejects.toThrow(/not a configured webhook endpoint/);
    });
  });
}

describe('webhook intake without a server', () => {
  it('never acknowledges a delivery whose journal row cannot be written: 503, `journal-error`; the redelivery replays', async () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const failures: unknown[] = [];
    let journalDown = true;
    const intake = createWebhookIntake({
      guard,
      journal: {
        record: async () => {
          if (journalDown) throw new Error('journal database is down');
        },
        forPayment: async () => [],
        purge: async () => 0,
      },
      endpoints: {
        stripe: {
          profile: stripeProfile(),
          scheme: stripeScheme({ secrets: DEFAULT_SECRETS.stripe }),
          handler: () => ({ ok: true }),
        },
      },
    });
    intake.on('journal-error', ({ error }) => failures.push(error));
    const nowSec = Math.floor(Date.now() / 1000);
    const body = bodyBytes(
      JSON.stringify({
        id: 'evt_journal_down',
        object: 'event',
        type: 'ping',
        created: nowSec,
        data: { object: { id: 'o_1' } },
      }),
    );
    const response = await intake.receive({ endpoint: 'stripe', rawBody: body, headers: stripeHeaders(body, nowSec) });
    expect(response.status).toBe(503);
    expect(JSON.parse(new TextDecoder().decode(response.body))).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(response.headers['retry-after']).toBe('1');
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toContain('journal database is down');
    journalDown = false;
    const again = await intake.receive({ endpoint: 'stripe', rawBody: body, headers: stripeHeaders(body, nowSec) });
    expect(again.status).toBe(200);
    expect(new TextDecoder().decode(again.body)).toBe('{"ok":true}');
  });

  it('checks its options once', () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    expect(() => createWebhookIntake({ guard, endpoints: {} })).toThrow(InvalidOption);
    const endpoints = {
      stripe: { profile: stripeProfile(), scheme: stripeScheme({ secrets: 'whsec_x' }), handler: () => undefined },
    };
    expect(() => createWebhookIntake({ guard, endpoints, maxBodyBytes: 0 })).toThrow(InvalidOption);
    expect(() => createWebhookIntake({ guard, endpoints, maxBodyBytes: 1.5 })).toThrow(InvalidOption);
  });
});

import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { sqlStuckReceipts } from '../../packages/payonce/src/observe/sql-stuck-receipts.js';
import { WebhookMetrics } from '../../packages/payonce/src/observe/webhook-metrics.js';
import { bodyBytes } from '../webhooks/fixtures.js';
import { stripeHeaders } from '../webhooks/intake-deliveries.js';
import { type IntakeWorld, send, startIntakeWorld, WEBHOOK_BACKENDS } from '../webhooks/intake-support.js';
import { parseExposition, sampleValue as value } from './exposition.js';

for (const backend of WEBHOOK_BACKENDS) {
  describe(`${backend}: GET /metrics of a running intake`, () => {
    let world: IntakeWorld;
    let metrics: WebhookMetrics;
    const clock = new ManualClock();
    beforeAll(async () => {
      metrics = new WebhookMetrics({ stuckAfterMs: 30_000, clock });
      world = await startIntakeWorld(backend, {
        extendApp: (app) =>
          app.get('/metrics', async (_request, reply) =>
            reply.header('content-type', metrics.contentType).send(await metrics.metrics()),
          ),
      });
      clock.set(world.clock.now());
      metrics.observeGuard(world.guard);
      metrics.observeIntake(world.intake);
    });
    afterAll(async () => {
      await world?.close();
    });

    const scrape = async () => {
      const response = await fetch(`${world.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      return parseExposition(await response.text());
    };

    it('exposes deliveries by decision, the duplicate ratio, handler durations and stuck receipts with exact counts', async () => {
      const nowSec = Math.floor(world.clock.now() / 1000);
      const event = (id: string) =>
        bodyBytes(
          JSON.stringify({ id, object: 'event', type: 'ping', created: nowSec, data: { object: { id: `o_${id}` } } }),
        );
      const url = `${world.url}/webhooks/stripe`;
      const a = event('evt_m_a');
      const b = event('evt_m_b');
      expect((await send(url, a, stripeHeaders(a, nowSec))).status).toBe(200);
      expect((await send(url, b, stripeHeaders(b, nowSec))).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await send(url, a, stripeHeaders(a, nowSec))).status).toBe(200);
      expect((await send(url, b, stripeHeaders(b, nowSec, 'whsec_forged'))).status).toBe(401);
      const failing = event('evt_m_fail');
      world.behaviour.failOnce.add('stripe/evt_m_fail');
      expect((await send(url, failing, stripeHeaders(failing, nowSec))).status).toBe(500);

      // One delivery held in its handler, then a parallel one of the same event, then the clock passes the stuck mark.
      const slow = event('evt_m_slow');
      let open: () => void = () => {};
      world.behaviour.gates.set('stripe/evt_m_slow', new Promise<void>((resolve) => (open = resolve)));
      const held = send(url, slow, stripeHeaders(slow, nowSec));
      while (!world.runs.get('stripe/evt_m_slow')) await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await send(url, slow, stripeHeaders(slow, nowSec))).status).toBe(409);
      clock.advance(30_000);
      const during = await scrape();
      expect(value(during.samples, 'payonce_receipts_stuck')).toBe(1);
      if ('db' in world.store) {
        const count = sqlStuckReceipts(world.store as unknown as { db: Kysely<unknown> }, {
          olderThanMs: 30_000,
          clock: { now: () => world.clock.now() + 30_000 },
        });
        expect(await count()).toBe(1);
      }
      open();
      expect((await held).status).toBe(200);

      const { types, samples } = await scrape();
      expect(types.get('payonce_webhook_deliveries_total')).toBe('counter');
      expect(types.get('payonce_webhook_duplicate_ratio')).toBe('gauge');
      expect(types.get('payonce_webhook_handler_duration_seconds')).toBe('histogram');
      expect(types.get('payonce_receipts_stuck')).toBe('gauge');
      const deliveries = (decision: string) =>
        value(samples, 'payonce_webhook_deliveries_total', { provider: 'stripe', decision });
      expect(deliveries('new')).toBe(4);
      expect(deliveries('duplicate')).toBe(3);
      expect(deliveries('rejected')).toBe(1);
      expect(deliveries('in-progress')).toBe(1);
      expect(value(samples, 'payonce_webhook_duplicate_ratio', { provider: 'stripe' })).toBeCloseTo(3 / 8, 10);
      const handler = (outcome: string, suffix: string) =>
        value(samples, `payonce_webhook_handler_duration_seconds_${suffix}`, { provider: 'stripe', outcome });
      expect(handler('completed', 'count')).toBe(3);
      expect(handler('failed', 'count')).toBe(1);
      expect(
        value(samples, 'payonce_webhook_handler_duration_seconds_bucket', {
          provider: 'stripe',
          outcome: 'completed',
          le: '+Inf',
        }),
      ).toBe(3);
      const buckets = samples
        .filter((s) => s.name === 'payonce_webhook_handler_duration_seconds_bucket' && s.labels.outcome === 'completed')
        .map((s) => s.value);
      expect(buckets).toEqual([...buckets].sort((x, y) => x - y));
      expect(value(samples, 'payonce_receipt_events_total', { provider: 'stripe', event: 'replayed' })).toBe(3);
      expect(value(samples, 'payonce_receipt_events_total', { provider: 'stripe', event: 'in-progress' })).toBe(1);
      expect(value(samples, 'payonce_receipts_stuck')).toBe(0);
      expect(
        value(samples, 'payonce_webhook_delivery_duration_seconds_count', { provider: 'stripe', decision: 'new' }),
      ).toBe(4);
    });

    it('rejects a malformed exposition line (the parser used above can fail)', () => {
      expect(() => parseExposition('# TYPE x counter\nx{a="1" 2\n')).toThrow(/not an exposition line|bad label/);
      expect(() => parseExposition('y 1\n')).toThrow(/before its TYPE/);
    });
  });
}

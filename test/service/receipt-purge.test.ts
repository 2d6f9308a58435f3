import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { httpRequestKey } from '../../packages/payonce/src/http/http-request-key.js';
import type { ReceiptsDatabase } from '../../packages/payonce/src/stores/sql/receipts-table.js';
import type { DeliveriesDatabase } from '../../packages/payonce/src/webhooks/journal/deliveries-table.js';
import { resolveServiceConfig } from '../../packages/service/src/service-config.js';
import { type Harness, orderAndCheckout, startHarness, until, untilFulfilled } from './service-harness.js';

const DAY_MS = 86_400_000;

describe('reference service: periodic receipt purge', () => {
  let h: Harness;
  let offsetMs = 0;
  beforeAll(async () => {
    h = await startHarness({ clock: { now: () => Date.now() + offsetMs }, receiptPurgeEveryMs: 50 });
  });
  afterAll(async () => {
    await h?.close();
  });

  async function receipts(provider: string): Promise<number> {
    const db = h.service.context.store.db as unknown as Kysely<ReceiptsDatabase>;
    const rows = await db.selectFrom('payonce_receipts').select('status').where('provider', '=', provider).execute();
    return rows.length;
  }

  it('deletes finished Idempotency-Key receipts past 24 h and webhook receipts past the 7-day retention, not before', async () => {
    const { orderId, checkout } = await orderAndCheckout(h.service.url);
    expect(checkout.status).toBe(201);
    await untilFulfilled(h.service.url, orderId);
    const keyOf = httpRequestKey('http', 'customer-a', 'POST', '/orders/:id/checkout', `checkout-${orderId}`);
    expect(await h.service.context.httpGuard.find(keyOf)).toMatchObject({ status: 'completed' });
    const webhooks = await receipts('stripe');
    expect(webhooks).toBeGreaterThan(0);

    offsetMs = DAY_MS - 60_000; // younger than the expiry: several purge runs keep it
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await h.service.context.httpGuard.find(keyOf)).not.toBeNull();

    offsetMs = DAY_MS + 60_000;
    await until(async () => (await h.service.context.httpGuard.find(keyOf)) === null, 5_000, 'the key to be purged');
    expect(await receipts('stripe')).toBe(webhooks); // webhook receipts keep their longer retention

    offsetMs = 7 * DAY_MS + 60_000;
    await until(async () => (await receipts('stripe')) === 0, 5_000, 'webhook receipts to be purged');
    expect(await journalRows()).toBeGreaterThan(0); // the journal keeps its 30-day retention

    offsetMs = 30 * DAY_MS + 60_000; // issue 34 item 7: the journal is purged too
    await until(async () => (await journalRows()) === 0, 5_000, 'journal rows to be purged');
  });

  it('reclaims abandoned claims (processing, owner gone) past the same retentions, and keeps a live one', async () => {
    const { httpGuard, intakeGuard } = h.service.context;
    const now = () => Date.now() + offsetMs;
    const abandonedKey = new RequestKey('http', `abandoned-${randomUUID()}`);
    const abandonedEvent = new RequestKey('stripe', `evt_abandoned_${randomUUID()}`);
    const liveEvent = new RequestKey('stripe', `evt_live_${randomUUID()}`);
    // Claims whose owners died before finishing (a checkout the customer gave up, a delivery never retried).
    await httpGuard.store.insertClaim({ key: abandonedKey, nowMs: now(), fingerprint: null });
    await intakeGuard.store.insertClaim({ key: abandonedEvent, nowMs: now(), fingerprint: null });
    await intakeGuard.store.insertClaim({ key: liveEvent, nowMs: now(), fingerprint: null });

    offsetMs += DAY_MS + 60_000;
    await until(async () => (await httpGuard.find(abandonedKey)) === null, 5_000, 'the abandoned key to be purged');
    expect((await intakeGuard.find(abandonedEvent))?.status).toBe('processing'); // the webhook retention is longer

    offsetMs += 7 * DAY_MS;
    // The live claim's owner still renews it (its heartbeat): it stays while the abandoned one goes.
    expect(await intakeGuard.store.renewClaim?.({ key: liveEvent, attempt: 1, nowMs: now() })).toBe(true);
    await until(
      async () => (await intakeGuard.find(abandonedEvent)) === null,
      5_000,
      'the abandoned event to be purged',
    );
    expect((await intakeGuard.find(liveEvent))?.status).toBe('processing');
  });

  async function journalRows(): Promise<number> {
    const db = h.service.context.store.db as unknown as Kysely<DeliveriesDatabase>;
    return (await db.selectFrom('payonce_webhook_deliveries').select('id').execute()).length;
  }

  it('defaults: one run an hour, webhook receipts kept 7 days; both must be positive integers', () => {
    expect(resolveServiceConfig({})).toMatchObject({
      receiptPurgeEveryMs: 3_600_000,
      webhookReceiptRetentionMs: 7 * DAY_MS,
      journalRetentionMs: 30 * DAY_MS,
    });
    expect(() => resolveServiceConfig({ journalRetentionMs: 0 })).toThrow(/journalRetentionMs/);
    expect(() => resolveServiceConfig({ receiptPurgeEveryMs: 0 })).toThrow(/receiptPurgeEveryMs/);
    expect(() => resolveServiceConfig({ webhookReceiptRetentionMs: 1.5 })).toThrow(/webhookReceiptRetentionMs/);
  });
});

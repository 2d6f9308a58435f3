import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../packages/payonce/src/core/clock.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { deliveryId } from '../../packages/payonce/src/webhooks/journal/delivery-id.js';
import type { DeliveryRecord } from '../../packages/payonce/src/webhooks/journal/delivery-record.js';
import { createRedactor } from '../../packages/payonce/src/webhooks/journal/redact.js';
import { SqlDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';
import type { AdminReads } from '../../packages/service/src/admin/admin-reads.js';
import type { AdminDatabase } from '../../packages/service/src/admin/admin-tables.js';
import { orderTimeline } from '../../packages/service/src/admin/admin-timeline.js';
import { createSqliteNamespace, type SqliteNamespace } from '../contract/backends/sqlite.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function delivery(overrides: Partial<DeliveryRecord>): DeliveryRecord {
  return {
    id: deliveryId(),
    receivedAtMs: T0,
    provider: 'stripe',
    eventKey: null,
    eventType: null,
    signature: 'signature_mismatch',
    decision: 'rejected',
    outcome: 'rejected',
    responseStatus: 401,
    error: 'WEBHOOK_SIGNATURE_INVALID: test',
    durationMs: 1,
    objectId: null,
    paymentId: null,
    merchantReference: null,
    amountMinor: null,
    currency: null,
    payload: null,
    ...overrides,
  };
}

describe('order timeline shows refused deliveries only when authentic (issue #34 item 7)', () => {
  let ns: SqliteNamespace;
  let store: SqliteStore;
  let reads: AdminReads;
  beforeAll(async () => {
    ns = await createSqliteNamespace();
    store = await SqliteStore.open(ns.path);
    await store.migrate();
    const db = store.db as unknown as Kysely<AdminDatabase>;
    reads = {
      db,
      dialect: 'sqlite',
      clock: systemClock,
      redactor: createRedactor(),
      stale: { http: 60_000, webhook: 300_000, payments: 300_000, webhookProviders: ['stripe'] },
    };
    const times = { created_at: T0, updated_at: T0 };
    await db
      .insertInto('payonce_orders')
      .values({
        id: 'ord_1',
        principal: 'p',
        status: 'paid',
        amount_minor: 500,
        currency: 'EUR',
        paid_attempt_id: 'att_1',
        ...times,
      })
      .execute();
    await db
      .insertInto('payonce_payment_attempts')
      .values({
        id: 'att_1',
        order_id: 'ord_1',
        provider: 'stripe',
        status: 'succeeded',
        amount_minor: 500,
        currency: 'EUR',
        idempotency_key: 'k1',
        provider_payment_id: 'pi_1',
        action_url: null,
        last_error: null,
        ...times,
      })
      .execute();
  });
  afterAll(async () => {
    await store?.close();
    await ns?.drop();
  });

  it('leaves forgeries naming the payment out, keeps authentic refusals and the latest deliveries', async () => {
    const journal = new SqlDeliveryJournal(store);
    // 150 forgeries naming the customer's payment id in their (older, pre-fix) payload.
    for (let i = 0; i < 150; i++) {
      await journal.record(delivery({ receivedAtMs: T0 + i, payload: '{"data":{"object":{"id":"pi_1"}}}' }));
    }
    const authentic = { signature: 'valid', eventKey: 'evt_ok', eventType: 'payment_intent.succeeded' };
    await journal.record(
      delivery({ ...authentic, receivedAtMs: T0 + 200, paymentId: 'pi_1', decision: 'new', outcome: 'completed' }),
    );
    await journal.record(
      delivery({ ...authentic, receivedAtMs: T0 + 300, paymentId: 'pi_1', responseStatus: 400, error: 'x' }),
    );
    const timeline = await orderTimeline(reads, 'ord_1');
    expect(timeline?.deliveries.map((d) => `${d.decision}:${d.signature}`)).toEqual(['new:valid', 'rejected:valid']);
    expect(timeline?.counts).toMatchObject({ deliveries: 2, rejectedDeliveries: 1 });
  });
});

import Database from 'better-sqlite3';
import { type Compilable, Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { ENQUEUE } from '../../packages/payonce/src/outbox/outbox.js';
import { OUTBOX_TABLE, type OutboxDatabase } from '../../packages/payonce/src/outbox/outbox-tables.js';
import { updateAttemptStatement } from '../../packages/payonce/src/payments/attempt-rows.js';
import { INSERT_JOURNAL } from '../../packages/payonce/src/payments/event-journal.js';
import { LOCK_ORDER } from '../../packages/payonce/src/payments/order-rows.js';
import {
  ATTEMPTS_TABLE,
  ORDERS_TABLE,
  PAYMENT_EVENTS_TABLE,
  type PaymentsDatabase,
} from '../../packages/payonce/src/payments/payments-tables.js';
import {
  type StatementDefinition,
  StatementTemplate,
} from '../../packages/payonce/src/stores/sql/compiled-statement.js';
import { dialectNamed } from '../../packages/payonce/src/stores/sql/dialects.js';
import type { SqlDialectName } from '../../packages/payonce/src/stores/sql/sql-dialect.js';
import type { DeliveriesDatabase } from '../../packages/payonce/src/webhooks/journal/deliveries-table.js';
import { RECORD } from '../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';

/**
 * The payments, outbox and delivery-journal statements of the webhook intake are compiled once from named slots
 * (src/stores/sql/compiled-statement.ts). Each is checked here against the query the builder made on every call
 * before (the same chain, with real values), on each dialect's Kysely compiler: the SQL text must be identical byte
 * for byte and the parameters identical in order. Compiling needs no connection, so no server is contacted.
 */
type AnyDb = PaymentsDatabase & OutboxDatabase & DeliveriesDatabase;

const unused = async (): Promise<never> => {
  throw new Error('compiling needs no connection');
};

function kyselyOf(name: SqlDialectName): Kysely<AnyDb> {
  if (name === 'sqlite') return new Kysely({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  if (name === 'postgres') return new Kysely({ dialect: new PostgresDialect({ pool: unused }) });
  return new Kysely({ dialect: new MysqlDialect({ pool: unused }) });
}

function expectSame<N extends string, R, DB>(
  db: Kysely<AnyDb>,
  name: SqlDialectName,
  definition: StatementDefinition<N, R, DB>,
  values: Readonly<Partial<Record<N, unknown>>>,
  reference: Compilable<unknown>,
): void {
  const template = StatementTemplate.compile(db as unknown as Kysely<DB>, dialectNamed(name), definition);
  const bound = template.bind(values as Readonly<Record<N, unknown>>);
  const expected = reference.compile();
  expect(bound.sql).toBe(expected.sql);
  expect(bound.parameters).toEqual(expected.parameters);
}

const NOW = 1_767_225_600_123;

for (const name of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(`${name}: the intake's compiled statements are the builder's SQL`, () => {
    const db = kyselyOf(name);
    afterAll(() => db.destroy());

    it('locks the order (FOR UPDATE except on SQLite)', () => {
      const reference = db
        .selectFrom(ORDERS_TABLE)
        .selectAll()
        .where('id', '=', 'ord_1')
        .$if(name !== 'sqlite', (query) => query.forUpdate());
      expectSame(db, name, LOCK_ORDER, { id: 'ord_1' }, reference);
      const sql = StatementTemplate.compile(
        db as unknown as Kysely<PaymentsDatabase>,
        dialectNamed(name),
        LOCK_ORDER,
      ).sql;
      expect(sql.endsWith(' for update')).toBe(name !== 'sqlite');
    });

    it('enqueues a job with ON CONFLICT DO NOTHING where the dialect has it (a plain INSERT on MySQL)', () => {
      const row = {
        id: 'job-1',
        topic: 'order.fulfil',
        dedupe_key: 'order:ord_1',
        payload: '{"orderId":"ord_1"}',
        status: 'queued',
        attempts: 0,
        available_at: NOW,
        lease_owner: null,
        lease_expires_at: null,
        last_error: null,
        created_at: NOW,
        finished_at: null,
      };
      const insert = db.insertInto(OUTBOX_TABLE).values(row);
      const reference = name === 'mysql' ? insert : insert.onConflict((conflict) => conflict.doNothing());
      const values = { id: 'job-1', topic: 'order.fulfil', dedupeKey: 'order:ord_1', payload: row.payload, nowMs: NOW };
      expectSame(db, name, ENQUEUE, values, reference);
    });

    it('writes the payment journal row, nulls included', () => {
      const reference = db.insertInto(PAYMENT_EVENTS_TABLE).values({
        provider: 'stripe',
        event_id: 'evt_1',
        event_type: 'payment_intent.succeeded',
        status: 'succeeded',
        provider_payment_id: 'pi_1',
        merchant_reference: null,
        order_ref: null,
        amount_minor: 1999,
        currency: 'EUR',
        occurred_at: NOW - 5,
        received_at: NOW,
        decision: 'applied',
        reason: null,
        attempt_id: 'att_1',
        order_id: 'ord_1',
        resolved_at: NOW,
      });
      const values = {
        provider: 'stripe',
        eventId: 'evt_1',
        eventType: 'payment_intent.succeeded',
        status: 'succeeded',
        paymentId: 'pi_1',
        merchantReference: null,
        orderRef: null,
        amountMinor: 1999,
        currency: 'EUR',
        occurredAtMs: NOW - 5,
        receivedAtMs: NOW,
        decision: 'applied',
        reason: null,
        attemptId: 'att_1',
        orderId: 'ord_1',
        resolvedAtMs: NOW,
      };
      expectSame(db, name, INSERT_JOURNAL, values, reference);
    });

    it('updates an attempt with exactly the columns of its change, in the builder’s order', () => {
      const plain = db.updateTable(ATTEMPTS_TABLE).set({ updated_at: NOW }).where('id', '=', 'att_1');
      expectSame(db, name, updateAttemptStatement(0), { id: 'att_1', nowMs: NOW }, plain);
      const full = db
        .updateTable(ATTEMPTS_TABLE)
        .set({ updated_at: NOW, status: 'failed', provider_payment_id: 'pi_1', action_url: null, last_error: 'x' })
        .where('id', '=', 'att_1');
      const values = { id: 'att_1', nowMs: NOW, status: 'failed', providerPaymentId: 'pi_1', actionUrl: null };
      expectSame(db, name, updateAttemptStatement(0b1111), { ...values, lastError: 'x' }, full);
      const succeeded = db
        .updateTable(ATTEMPTS_TABLE)
        .set({ updated_at: NOW, status: 'succeeded' })
        .where('id', '=', 'att_1');
      expectSame(db, name, updateAttemptStatement(0b0001), { id: 'att_1', nowMs: NOW, status: 'succeeded' }, succeeded);
    });

    it('writes the delivery journal row', () => {
      const record = {
        id: '0190-a',
        receivedAtMs: NOW,
        provider: 'stripe',
        eventKey: 'evt_1',
        eventType: 'payment_intent.succeeded',
        signature: 'valid',
        decision: 'new',
        outcome: 'completed',
        responseStatus: 200,
        error: null,
        durationMs: 3,
        objectId: 'pi_1',
        paymentId: 'pi_1',
        merchantReference: null,
        amountMinor: 1999,
        currency: 'EUR',
        payload: '{"id":"evt_1"}',
      };
      const reference = db.insertInto('payonce_webhook_deliveries').values({
        id: record.id,
        received_at: record.receivedAtMs,
        provider: record.provider,
        event_key: record.eventKey,
        event_type: record.eventType,
        signature: record.signature,
        decision: record.decision,
        outcome: record.outcome,
        response_status: record.responseStatus,
        error: record.error,
        duration_ms: record.durationMs,
        object_id: record.objectId,
        payment_id: record.paymentId,
        merchant_reference: record.merchantReference,
        amount_minor: record.amountMinor,
        currency: record.currency,
        payload: record.payload,
      });
      expectSame(db, name, RECORD, record, reference);
    });
  });
}

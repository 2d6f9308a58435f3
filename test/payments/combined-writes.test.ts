import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../packages/payonce/src/outbox/sql-transaction.js';
import { FULFIL_TOPIC } from '../../packages/payonce/src/payments/apply-report.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import {
  combineWrites,
  isCombinableWrite,
  shiftPlaceholders,
} from '../../packages/payonce/src/stores/sql/combined-writes.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import { eventAbout, openAttempt, sentStatements } from './payments-fixtures.js';

/**
 * The independent writes of a payment transition (the order's move, its fulfilment job, the attempt's move, the
 * event's journal row) go to PostgreSQL as ONE statement of data-modifying `with` parts (issue #40: a round trip
 * each was most of a webhook's cost), and stay all-or-nothing.
 */
describe('combining writes into one PostgreSQL statement', () => {
  it('renumbers placeholders, never inside a quoted identifier or a string', () => {
    expect(shiftPlaceholders('update "t" set "a" = $1, "b" = $2 where "id" = $10', 3)).toBe(
      'update "t" set "a" = $4, "b" = $5 where "id" = $13',
    );
    expect(shiftPlaceholders(`insert into "x$1" ("c") values ($1) -- '$2'`, 5)).toBe(
      `insert into "x$1" ("c") values ($6) -- '$2'`,
    );
  });

  it('combines plain writes only, and counts the rows each touched', () => {
    const a = CompiledQuery.raw('update "t" set "a" = $1 where "id" = $2', ['x', 1]);
    const b = CompiledQuery.raw('insert into "u" ("id") values ($1) on conflict do nothing', [2]);
    expect(isCombinableWrite(a)).toBe(true);
    expect(isCombinableWrite(b)).toBe(true);
    expect(isCombinableWrite(CompiledQuery.raw('select 1', []))).toBe(false);
    expect(isCombinableWrite(CompiledQuery.raw('insert into "u" ("id") values ($1) returning "id"', [1]))).toBe(false);
    const combined = combineWrites([a, b]);
    expect(combined.sql).toBe(
      'with w0 as (update "t" set "a" = $1 where "id" = $2 returning 1), ' +
        'w1 as (insert into "u" ("id") values ($3) on conflict do nothing returning 1) ' +
        'select (select count(*) from w0)::int as n0, (select count(*) from w1)::int as n1',
    );
    expect(combined.parameters).toEqual(['x', 1, 2]);
    // The same shapes again (their text is made once): the same SQL, this call's values.
    const again = combineWrites([CompiledQuery.raw(a.sql, ['y', 7]), CompiledQuery.raw(b.sql, [8])]);
    expect(again.sql).toBe(combined.sql);
    expect(again.parameters).toEqual(['y', 7, 8]);
    // Other parts in another order: their own text.
    expect(combineWrites([b, a]).sql).toBe(
      'with w0 as (insert into "u" ("id") values ($1) on conflict do nothing returning 1), ' +
        'w1 as (update "t" set "a" = $2 where "id" = $3 returning 1) ' +
        'select (select count(*) from w0)::int as n0, (select count(*) from w1)::int as n1',
    );
  });
});

const onPostgres = sqlDialectsFromEnv().includes('postgres');

describe.skipIf(!onPostgres)('postgres: a paid transition writes in one statement', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  let payments: Payments<unknown>;
  beforeAll(async () => {
    backend = await createSqlBackend('postgres');
    store = await backend.open();
    payments = new Payments(store, { provider: new InMemoryPaymentProvider() });
  });
  afterAll(async () => backend?.drop());

  it('sends the order, job, attempt and journal writes together, and each is made', async () => {
    const { order, attempt } = await openAttempt(payments);
    const event = eventAbout(attempt);
    const { result, texts } = await sentStatements(() => payments.applyProviderEvent(event));
    expect(result).toMatchObject({ decision: 'applied', becamePaid: true, duplicate: false });
    const writes = texts.filter(
      (text) => /payonce_outbox"|payonce_payment_events"/.test(text) && !/^select/.test(text),
    );
    expect(writes).toHaveLength(1);
    const [combined] = writes;
    expect(combined).toMatch(/^with w0 as \(/);
    expect(combined).toContain('update "payonce_orders"');
    expect(combined).toContain('insert into "payonce_outbox"');
    expect(combined).toContain('update "payonce_payment_attempts"');
    expect(combined).toContain('insert into "payonce_payment_events"');
    // What one statement wrote is what four wrote before.
    expect(await payments.findOrder(order.id)).toMatchObject({ status: 'paid', paidAttemptId: attempt.id });
    expect((await payments.attemptsOf(order.id)).find((one) => one.id === attempt.id)?.status).toBe('succeeded');
    const jobs = await payments.outbox.jobsByDedupeKey(`order:${order.id}`);
    expect(jobs.map((job) => job.topic)).toEqual([FULFIL_TOPIC]);
    const journal = await payments.journalOf(order.id);
    expect(journal.find((row) => row.eventId === event.key?.externalId)).toMatchObject({ decision: 'applied' });
    // A second delivery of the event changes nothing and enqueues nothing.
    expect(await payments.applyProviderEvent(event)).toMatchObject({ duplicate: true });
    expect(await payments.outbox.jobsByDedupeKey(`order:${order.id}`)).toHaveLength(1);
  });

  it("sends the checkout's answer (the attempt's move and its journal row) in one statement", async () => {
    const order = await payments.createOrder('customer-a', { amountMinor: 2500, currency: 'UZS' });
    const { result, texts } = await sentStatements(() => payments.openCheckout(order.id, 'customer-a'));
    if (result.kind !== 'attempt') throw new Error(result.kind);
    const journalWrites = texts.filter((text) => text.includes('insert into "payonce_payment_events"'));
    expect(journalWrites).toHaveLength(1);
    expect(journalWrites[0]).toMatch(/^with w0 as \(update "payonce_payment_attempts"/);
    const [stored] = await payments.attemptsOf(order.id);
    expect(stored).toEqual(result.attempt);
    const journal = await payments.journalOf(order.id);
    expect(journal.map((row) => row.eventType)).toEqual(['checkout.response']);
  });

  it('answers a plain apply after one under a held receipt as a duplicate, not a duplicate-key error', async () => {
    const { order, attempt } = await openAttempt(payments);
    const event = eventAbout(attempt);
    await transaction(store, (trx) => payments.applyProviderEvent(event, trx, { receiptHeld: true }));
    expect(await payments.applyProviderEvent(event)).toMatchObject({ decision: 'applied', duplicate: true });
    expect(await payments.outbox.jobsByDedupeKey(`order:${order.id}`)).toHaveLength(1);
  });

  it('is all or nothing: a part that fails leaves the order, the attempt, the outbox and the journal as they were', async () => {
    const { order, attempt } = await openAttempt(payments);
    const event = eventAbout(attempt);
    // The order's part is refused (a constraint of this test's own schema, on new rows only): no other part stays.
    await sql`alter table payonce_orders add constraint test_never_paid check (status <> 'paid') not valid`.execute(
      store.db,
    );
    try {
      await expect(payments.applyProviderEvent(event)).rejects.toThrow(/test_never_paid/);
    } finally {
      await sql`alter table payonce_orders drop constraint test_never_paid`.execute(store.db);
    }
    expect((await payments.findOrder(order.id))?.status).toBe('awaiting_payment');
    expect((await payments.attemptsOf(order.id)).find((one) => one.id === attempt.id)?.status).toBe(attempt.status);
    expect(await payments.outbox.jobsByDedupeKey(`order:${order.id}`)).toHaveLength(0);
    expect((await payments.journalOf(order.id)).map((row) => row.eventType)).toEqual(['checkout.response']);
    // Delivered again once the database takes it: applied once.
    expect(await payments.applyProviderEvent(event)).toMatchObject({ decision: 'applied', becamePaid: true });
    expect(await payments.outbox.jobsByDedupeKey(`order:${order.id}`)).toHaveLength(1);
  });
});

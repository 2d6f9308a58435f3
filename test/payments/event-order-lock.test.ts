import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { transaction } from '../../packages/payonce/src/outbox/sql-transaction.js';
import { FULFIL_TOPIC } from '../../packages/payonce/src/payments/apply-report.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { type PaymentAlert, Payments } from '../../packages/payonce/src/payments/payments.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';

const MONEY = { amountMinor: 500_000, currency: 'UZS' };

/** True once a statement of another connection waits for a lock `holder` (a backend/thread id) holds. */
async function blockedBy(store: SqlStore<unknown>, holder: number): Promise<boolean> {
  if (store.dialect.name === 'postgres') {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity where ${holder} = any(pg_blocking_pids(pid))`.execute(store.db);
    return (rows[0]?.n ?? 0) > 0;
  }
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from information_schema.innodb_lock_waits w
    join information_schema.innodb_trx b on b.trx_id = w.blocking_trx_id
    where b.trx_mysql_thread_id = ${holder}`.execute(store.db);
  return Number(rows[0]?.n ?? 0) > 0;
}

async function sessionId(trx: Transaction<unknown>, dialect: string): Promise<number> {
  const query =
    dialect === 'postgres'
      ? sql<{ id: number }>`select pg_backend_pid() as id`
      : sql<{ id: number }>`select connection_id() as id`;
  return Number((await query.execute(trx)).rows[0]?.id);
}

/**
 * A provider event with a payment id locks the order in the statement that finds its attempt (PostgreSQL and
 * MySQL, `lockEventTarget`): while another transaction holds the order, the event waits, and then decides on the
 * order as that transaction left it. Were the order read without the lock, the event would mark a cancelled order
 * paid and enqueue its fulfilment.
 */
for (const dialect of sqlDialectsFromEnv().filter((name) => name !== 'sqlite')) {
  describe(`${dialect}: a provider event waits for the order's lock`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let payments: Payments<unknown>;
    const alerts: PaymentAlert[] = [];
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      payments = new Payments(store, { provider: new InMemoryPaymentProvider(), onAlert: (a) => alerts.push(a) });
    });
    afterAll(async () => backend?.drop());

    it('an order cancelled by the lock holder stays cancelled; the success is alerted, nothing is fulfilled', async () => {
      const order = await payments.createOrder('customer-a', MONEY);
      const ref = { provider: 'payme', paymentId: `placeholder-lock-${process.pid}` };
      const attempt = await transaction(store, (trx) => payments.openProviderAttempt(trx, order.id, ref));
      let applying: ReturnType<Payments<unknown>['applyProviderEvent']> | null = null;
      await transaction(store, async (trx) => {
        expect(await payments.lockOrderIn(trx, order.id)).not.toBeNull();
        const holder = await sessionId(trx, dialect);
        applying = payments.applyProviderEvent({
          provider: 'payme',
          key: new RequestKey('payme', `placeholder-lock-event-${process.pid}`),
          eventType: 'PerformTransaction',
          status: 'succeeded',
          paymentId: ref.paymentId,
          amountMinor: MONEY.amountMinor,
          currency: MONEY.currency,
          merchantReference: null,
          occurredAtMs: null,
        });
        applying.catch(() => {});
        // InnoDB's lock tables are a cache refreshed only when not read for 0.1 s: poll slower than that.
        while (!(await blockedBy(store, holder))) await new Promise((resolve) => setTimeout(resolve, 150));
        expect((await payments.advanceOrder(trx, order.id, 'cancelled')).kind).toBe('move');
      });
      const result = await applying!;
      expect(result).toMatchObject({ decision: 'applied', attemptId: attempt.id, becamePaid: false });
      expect(result.reason).toMatch(/order is cancelled/);
      expect((await payments.findOrder(order.id))?.status).toBe('cancelled');
      expect(await new Outbox(store).find(FULFIL_TOPIC, `order:${order.id}`)).toBeNull();
      expect(alerts.map((a) => a.orderId)).toEqual([order.id]);
    });
  });
}

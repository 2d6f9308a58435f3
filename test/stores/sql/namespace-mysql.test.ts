import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../packages/payonce/src/cli/run-migrate.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { claimJob } from '../../../packages/payonce/src/outbox/claim-job.js';
import { runEffectOnce } from '../../../packages/payonce/src/outbox/effect-ledger.js';
import { Outbox } from '../../../packages/payonce/src/outbox/outbox.js';
import { InMemoryPaymentProvider } from '../../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../../packages/payonce/src/payments/payments.js';
import { MysqlStore } from '../../../packages/payonce/src/stores/mysql/mysql-store.js';
import { SqlDeliveryJournal } from '../../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';
import { MYSQL_TEST_URL } from '../../contract/backends/mysql.js';

async function admin<R>(statement: string, values: unknown[] = []): Promise<R[]> {
  const connection = await mysql.createConnection({ uri: MYSQL_TEST_URL });
  try {
    return (await connection.query(statement, values))[0] as R[];
  } finally {
    await connection.end();
  }
}

async function tablesIn(database: string): Promise<string[]> {
  const rows = await admin<{ name: string }>(
    'select table_name as name from information_schema.tables where table_schema = ? order by 1',
    [database],
  );
  return rows.map((row) => row.name);
}

describe('mysql: payonce tables in a database of their own, the connection on the user database', () => {
  const suffix = randomBytes(5).toString('hex');
  const userDatabase = `ns_user_${suffix}`;
  const payonceDatabase = `ns_payonce_${suffix}`;
  const userUrl = (() => {
    const url = new URL(MYSQL_TEST_URL);
    url.pathname = `/${userDatabase}`;
    return url.toString();
  })();
  let store: MysqlStore;

  beforeAll(async () => {
    await admin(`create database ${userDatabase}`);
  });
  afterAll(async () => {
    await store?.close();
    await admin(`drop database if exists ${payonceDatabase}`);
    await admin(`drop database if exists ${userDatabase}`);
  });

  it('migrate --schema --only receipts,outbox,journal creates the database and only those tables', async () => {
    const out: string[] = [];
    await runMigrate(
      userUrl,
      { out: (line) => out.push(line) },
      { schema: payonceDatabase, only: ['receipts', 'outbox', 'journal'] },
    );
    expect(out[0]).toContain(`(database ${payonceDatabase})`);
    expect(await tablesIn(payonceDatabase)).toEqual([
      'payonce_effects',
      'payonce_migration',
      'payonce_migration_lock',
      'payonce_outbox',
      'payonce_outbox_order',
      'payonce_outbox_trace',
      'payonce_receipts',
      'payonce_receipt_trace',
      'payonce_webhook_deliveries',
    ]);
    expect(await tablesIn(userDatabase)).toEqual([]);
  });

  it('receipts (batched too), outbox, effect ledger, journal and payments run in that database', async () => {
    store = await MysqlStore.connect(userUrl, { schema: payonceDatabase, batching: true });
    expect((await store.migrate()).applied).toContain('0002-payments');
    const guard = new IdempotencyGuard(store);
    const keys = Array.from({ length: 12 }, (_, i) => new RequestKey('ns', `evt_${i}`));
    const first = await Promise.all(keys.map((key) => guard.run(key, async () => {})));
    const again = await Promise.all(keys.map((key) => guard.run(key, async () => {})));
    expect(first.every((o) => !o.isReplay) && again.every((o) => o.isReplay)).toBe(true);
    expect(await store.purgeBatch(Date.now() + 60_000, 100)).toBe(12);

    const outbox = new Outbox(store);
    await store.transaction((trx) => outbox.enqueueOnce(trx, 'ns.topic', 'k1', {}, { aggregateKey: 'a' }));
    const claimed = await claimJob(store, { topics: ['ns.topic'], workerId: 'w', nowMs: Date.now(), leaseMs: 60_000 });
    expect(claimed?.topic).toBe('ns.topic');
    expect((await runEffectOnce(store, 'e1', async () => 1)).kind).toBe('applied');
    expect((await runEffectOnce(store, 'e1', async () => 1)).kind).toBe('already-applied');

    const journal = new SqlDeliveryJournal(store);
    await journal.record({
      id: `d_${suffix}`,
      receivedAtMs: 1_000,
      provider: 'ns',
      eventKey: null,
      eventType: null,
      signature: 'valid',
      decision: 'new',
      outcome: 'completed',
      responseStatus: 200,
      error: null,
      durationMs: 1,
      objectId: null,
      paymentId: null,
      merchantReference: 'order-1',
      amountMinor: null,
      currency: null,
      payload: null,
    });
    expect(await journal.forPayment('order-1')).toHaveLength(1);

    const payments = new Payments(store, { provider: new InMemoryPaymentProvider() });
    const order = await payments.createOrder('alice', { amountMinor: 500, currency: 'EUR' });
    expect((await payments.openCheckout(order.id, 'alice')).kind).toBe('attempt');
    expect(await payments.attemptsOf(order.id)).toHaveLength(1);
    expect(await tablesIn(userDatabase)).toEqual([]);
  });
});

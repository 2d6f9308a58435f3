import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../packages/payonce/src/cli/run-migrate.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { sqlStuckReceipts } from '../../../packages/payonce/src/observe/sql-stuck-receipts.js';
import { claimJob } from '../../../packages/payonce/src/outbox/claim-job.js';
import { effectApplied, runEffectOnce } from '../../../packages/payonce/src/outbox/effect-ledger.js';
import { Outbox } from '../../../packages/payonce/src/outbox/outbox.js';
import { InMemoryPaymentProvider } from '../../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../../packages/payonce/src/payments/payments.js';
import { claimRelayBatch } from '../../../packages/payonce/src/relay/claim-relay-batch.js';
import { finishRelayed } from '../../../packages/payonce/src/relay/finish-relayed.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import { runInPgTransaction } from '../../../packages/payonce/src/tx/pg.js';
import { SqlDeliveryJournal } from '../../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';
import { POSTGRES_TEST_URL } from '../../contract/backends/postgres.js';

/** Runs `statement` on a connection of its own (default search_path). */
async function admin<R extends pg.QueryResultRow>(statement: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    return (await client.query<R>(statement, values)).rows;
  } finally {
    await client.end();
  }
}

/** Names of the relations (`r` tables, `S` sequences) and functions in `schema`, sorted. */
async function objectsIn(schema: string): Promise<{ tables: string[]; sequences: string[]; functions: string[] }> {
  const relations = await admin<{ name: string; kind: string }>(
    `select c.relname as name, c.relkind as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relkind in ('r', 'S') order by 1`,
    [schema],
  );
  const functions = await admin<{ name: string }>(
    'select p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = $1 order by 1',
    [schema],
  );
  return {
    tables: relations.filter((r) => r.kind === 'r').map((r) => r.name),
    sequences: relations.filter((r) => r.kind === 'S').map((r) => r.name),
    functions: functions.map((f) => f.name),
  };
}

describe('postgres: payonce tables in their own schema, the connection on another search_path', () => {
  const suffix = randomBytes(5).toString('hex');
  const userSchema = `ns_user_${suffix}`;
  const payonceSchema = `ns_payonce_${suffix}`;
  const userConfig = { connectionString: POSTGRES_TEST_URL, options: `-c search_path=${userSchema}` };
  const userUrl = (() => {
    const url = new URL(POSTGRES_TEST_URL);
    url.searchParams.set('options', `-c search_path=${userSchema}`);
    return url.toString();
  })();
  let store: PostgresStore;

  beforeAll(async () => {
    await admin(`create schema ${userSchema}`);
  });
  afterAll(async () => {
    await store?.close();
    await admin(`drop schema if exists ${payonceSchema} cascade`);
    await admin(`drop schema if exists ${userSchema} cascade`);
  });

  it('migrate --schema --only receipts,outbox,journal creates the schema and only those tables, nothing in the user schema', async () => {
    const out: string[] = [];
    const report = await runMigrate(
      userUrl,
      { out: (line) => out.push(line) },
      { schema: payonceSchema, only: ['receipts', 'outbox', 'journal'] },
    );
    expect(report.notSelected.length).toBeGreaterThan(0);
    expect(out[0]).toContain(`(schema ${payonceSchema})`);
    expect(await objectsIn(payonceSchema)).toEqual({
      tables: [
        'payonce_effects',
        'payonce_migration',
        'payonce_migration_lock',
        'payonce_outbox',
        'payonce_outbox_order',
        'payonce_outbox_trace',
        'payonce_receipt_trace',
        'payonce_receipts',
        'payonce_webhook_deliveries',
      ],
      sequences: ['payonce_outbox_order_seq_seq'],
      functions: ['payonce_receipt_finished_notify'],
    });
    expect(await objectsIn(userSchema)).toEqual({ tables: [], sequences: [], functions: [] });
  });

  it('store.migrate with the schema adds the other groups there, and a second run applies nothing', async () => {
    store = await PostgresStore.connect(userConfig, { schema: payonceSchema });
    const report = await store.migrate();
    expect(report.applied).toContain('0002-payments');
    expect(report.alreadyApplied).toContain('0001-receipts');
    expect((await store.migrate()).applied).toEqual([]);
    const { tables } = await objectsIn(payonceSchema);
    expect(tables).toContain('payonce_orders');
    expect(tables).toContain('payonce_admin_actions');
    expect(await objectsIn(userSchema)).toEqual({ tables: [], sequences: [], functions: [] });
  });

  it('receipts: run, replay, find, stuck count and purge on the schema', async () => {
    const guard = new IdempotencyGuard(store);
    const key = new RequestKey('ns', `evt_${suffix}`);
    let runs = 0;
    const handler = async () => {
      runs++;
    };
    const first = await guard.run(key, handler);
    const again = await guard.run(key, handler);
    expect([first.isReplay, again.isReplay, runs]).toEqual([false, true, 1]);
    expect((await store.find(key))?.status).toBe('completed');
    expect(await sqlStuckReceipts(store, { olderThanMs: 1 })()).toBe(0);
    const [row] = await admin<{ n: string }>(`select count(*) as n from ${payonceSchema}.payonce_receipts`);
    expect(Number(row?.n)).toBe(1);
    expect(await store.purgeBatch(Date.now() + 60_000, 10)).toBe(1);
    expect(await store.find(key)).toBeNull();
  });

  it('batched claims and completions use the schema', async () => {
    const batched = await PostgresStore.connect(userConfig, { schema: payonceSchema, batching: true });
    try {
      const guard = new IdempotencyGuard(batched);
      const keys = Array.from({ length: 20 }, (_, i) => new RequestKey('ns-batch', `evt_${i}`));
      const outcomes = await Promise.all(keys.map((key) => guard.run(key, async () => {})));
      expect(outcomes.every((o) => !o.isReplay)).toBe(true);
      const replays = await Promise.all(keys.map((key) => guard.run(key, async () => {})));
      expect(replays.every((o) => o.isReplay)).toBe(true);
    } finally {
      await batched.close();
    }
  });

  it('outbox, worker claim, relay claim and finish, effect ledger on the schema', async () => {
    const outbox = new Outbox(store);
    await store.transaction((trx) => outbox.enqueueOnce(trx, 'ns.topic', 'k1', { n: 1 }, { aggregateKey: 'agg' }));
    const job = await outbox.find('ns.topic', 'k1');
    expect(job?.status).toBe('queued');
    const claimed = await claimJob(store, { topics: ['ns.topic'], workerId: 'w', nowMs: Date.now(), leaseMs: 60_000 });
    expect(claimed?.id).toBe(job?.id);
    await store.transaction((trx) => outbox.enqueueOnce(trx, 'ns.relay', 'k2', { n: 2 }, { aggregateKey: 'agg' }));
    const messages = await claimRelayBatch(store, {
      topics: ['ns.relay'],
      relayId: 'r',
      nowMs: Date.now(),
      leaseMs: 60_000,
      batchSize: 10,
    });
    expect(messages.map((m) => m.topic)).toEqual(['ns.relay']);
    expect(await finishRelayed(store, 'r', messages, { kind: 'sent' }, Date.now())).toBe(1);
    expect((await outbox.find('ns.relay', 'k2'))?.status).toBe('done');
    const effect = () => runEffectOnce(store, `effect_${suffix}`, async () => 'applied');
    expect((await effect()).kind).toBe('applied');
    expect((await effect()).kind).toBe('already-applied');
    expect(await effectApplied(store, `effect_${suffix}`)).toBe(true);
  });

  it('delivery journal: record, lookup and purge on the schema', async () => {
    const journal = new SqlDeliveryJournal(store);
    await journal.record({
      id: `d_${suffix}`,
      receivedAtMs: 1_000,
      provider: 'ns',
      eventKey: 'evt_1',
      eventType: 'payment.succeeded',
      signature: 'valid',
      decision: 'new',
      outcome: 'completed',
      responseStatus: 200,
      error: null,
      durationMs: 3,
      objectId: 'obj_1',
      paymentId: null,
      merchantReference: 'order-1',
      amountMinor: 100,
      currency: 'EUR',
      payload: null,
    });
    expect((await journal.forPayment('order-1')).map((d) => d.id)).toEqual([`d_${suffix}`]);
    expect(await journal.purge({ olderThan: 2_000 })).toBe(1);
  });

  it('payments: order, checkout attempt and queries on the schema', async () => {
    const payments = new Payments(store, { provider: new InMemoryPaymentProvider() });
    const order = await payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
    const checkout = await payments.openCheckout(order.id, 'alice');
    expect(checkout.kind).toBe('attempt');
    expect(await payments.attemptsOf(order.id)).toHaveLength(1);
    expect((await payments.findOrder(order.id))?.id).toBe(order.id);
    const [row] = await admin<{ n: string }>(`select count(*) as n from ${payonceSchema}.payonce_payment_attempts`);
    expect(Number(row?.n)).toBe(1);
  });

  it("runInPgTransaction on the user's client (search_path = user schema): receipt and outbox in payonce's schema, the user's write in theirs", async () => {
    const client = new pg.Client(userConfig);
    await client.connect();
    try {
      await client.query('create table orders (id text primary key, paid boolean not null default false)');
      await client.query(`insert into orders (id) values ('ord_1')`);
      const guard = new IdempotencyGuard(store);
      const outbox = new Outbox(store);
      const onPaid = async (eventId: string) => {
        await client.query('BEGIN');
        try {
          const outcome = await runInPgTransaction(
            guard,
            client,
            new RequestKey('ns-joined', eventId),
            async (tx, _claim, payonceTx) => {
              await tx.query(`update orders set paid = true where id = 'ord_1'`);
              await outbox.enqueueOnce(payonceTx, 'order.fulfil', 'order:ord_1', {});
            },
          );
          await client.query('COMMIT');
          return outcome;
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      };
      expect((await onPaid('evt_1')).isReplay).toBe(false);
      expect((await onPaid('evt_1')).isReplay).toBe(true);
      await expect(
        (async () => {
          await client.query('BEGIN');
          try {
            await runInPgTransaction(guard, client, new RequestKey('ns-joined', 'evt_2'), async () => {
              throw new Error('declined');
            });
          } finally {
            await client.query('ROLLBACK');
          }
        })(),
      ).rejects.toThrow('declined');
      expect(await store.find(new RequestKey('ns-joined', 'evt_2'))).toBeNull();
      expect((await store.find(new RequestKey('ns-joined', 'evt_1')))?.status).toBe('completed');
      expect((await outbox.find('order.fulfil', 'order:ord_1'))?.status).toBe('queued');
      expect((await client.query('select paid from orders')).rows).toEqual([{ paid: true }]);
      expect((await objectsIn(userSchema)).tables).toEqual(['orders']);
    } finally {
      await client.end();
    }
  });

  it('refuses an invalid schema name with InvalidOption before connecting', async () => {
    await expect(PostgresStore.connect(userConfig, { schema: 'bad-name; drop' })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      option: 'schema',
    });
  });
});

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import mysql from 'mysql2/promise';
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
import { storedPaymeKeys } from '../../../packages/payonce/src/providers/payme/index.js';
import { claimRelayBatch } from '../../../packages/payonce/src/relay/claim-relay-batch.js';
import { finishRelayed } from '../../../packages/payonce/src/relay/finish-relayed.js';
import { MysqlStore } from '../../../packages/payonce/src/stores/mysql/mysql-store.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { SqliteStore } from '../../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { runInKyselyTransaction } from '../../../packages/payonce/src/tx/kysely.js';
import { SqlDeliveryJournal } from '../../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';
import { createMysqlNamespace, type MysqlNamespace } from '../../contract/backends/mysql.js';
import {
  createPostgresNamespace,
  POSTGRES_TEST_URL,
  type PostgresNamespace,
} from '../../contract/backends/postgres.js';
import { AMOUNT, KEY, newPaymeId, PAYME_TIME } from '../../providers/payme/payme-fixtures.js';
import { paymeBench } from '../../providers/payme/payme-harness.js';

/**
 * Two table prefixes in ONE database (one SQLite file, one MariaDB database, one PostgreSQL schema): each set of
 * payonce tables migrates, runs every part of payonce and stays apart from the other, and no object named
 * `payonce_…` is ever created.
 */
interface PrefixBackend {
  readonly name: string;
  /** What `payonce migrate` takes. */
  readonly url: string;
  open(tablePrefix: string): Promise<SqlStore<unknown>>;
  /** A store with batched claims and completions (PostgreSQL, MySQL); `null` on SQLite, which has none. */
  openBatched(tablePrefix: string): Promise<SqlStore<unknown>> | null;
  /** Every named object of the database (tables, indexes, constraints, sequences, triggers, functions), sorted. */
  objects(): Promise<string[]>;
  /** The tables only, sorted. */
  tables(): Promise<string[]>;
  /** The application's own Kysely on the database (SQLite: a connection of its own), for a joined transaction. */
  appDb(store: SqlStore<unknown>): Kysely<unknown>;
  drop(): Promise<void>;
}

async function sqliteBackend(): Promise<PrefixBackend> {
  const dir = await mkdtemp(join(tmpdir(), 'payonce-prefix-'));
  const file = join(dir, 'shared.db');
  const read = (statement: string): string[] => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare(statement).all() as { name: string }[]).map((row) => row.name);
    } finally {
      db.close();
    }
  };
  return {
    name: 'sqlite',
    url: file,
    open: (tablePrefix) => SqliteStore.open(file, { tablePrefix }),
    openBatched: () => null,
    objects: async () => read("select name from sqlite_master where name not like 'sqlite\\_%' escape '\\' order by 1"),
    tables: async () =>
      read("select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by 1"),
    appDb: () => new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(file) }) }),
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

async function mysqlBackend(): Promise<PrefixBackend> {
  const namespace: MysqlNamespace = await createMysqlNamespace();
  const read = async (statement: string): Promise<string[]> => {
    const connection = await mysql.createConnection({ uri: namespace.url });
    try {
      const [rows] = await connection.query(statement, [namespace.database]);
      return (rows as { name: string }[]).map((row) => row.name).sort();
    } finally {
      await connection.end();
    }
  };
  const tables = 'select table_name as name from information_schema.tables where table_schema = ?';
  return {
    name: 'mysql',
    url: namespace.url,
    open: (tablePrefix) => MysqlStore.connect(namespace.url, { tablePrefix }),
    openBatched: (tablePrefix) => MysqlStore.connect(namespace.url, { tablePrefix, batching: true }),
    objects: async () => [
      ...(await read(tables)),
      ...(await read('select index_name as name from information_schema.statistics where table_schema = ?')),
      ...(await read(
        'select constraint_name as name from information_schema.table_constraints where constraint_schema = ?',
      )),
      ...(await read('select trigger_name as name from information_schema.triggers where trigger_schema = ?')),
      ...(await read('select routine_name as name from information_schema.routines where routine_schema = ?')),
    ],
    tables: () => read(tables),
    appDb: (store) => store.db,
    drop: () => namespace.drop(),
  };
}

async function postgresBackend(): Promise<PrefixBackend> {
  const namespace: PostgresNamespace = await createPostgresNamespace();
  const read = async (statement: string): Promise<string[]> => {
    const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
    await client.connect();
    try {
      return (await client.query<{ name: string }>(statement, [namespace.schema])).rows.map((row) => row.name).sort();
    } finally {
      await client.end();
    }
  };
  const relations = (kinds: string) =>
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relkind in (${kinds})`;
  return {
    name: 'postgres',
    url: namespace.url,
    open: (tablePrefix) => PostgresStore.connect(namespace.config, { tablePrefix }),
    openBatched: (tablePrefix) => PostgresStore.connect(namespace.config, { tablePrefix, batching: true }),
    objects: async () => [
      ...(await read(relations("'r', 'i', 'S'"))),
      ...(await read(
        'select p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = $1',
      )),
      ...(await read(
        'select c.conname as name from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = $1',
      )),
      ...(await read(
        `select t.tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
         join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and not t.tgisinternal`,
      )),
    ],
    tables: () => read(relations("'r'")),
    appDb: (store) => store.db,
    drop: () => namespace.drop(),
  };
}

const BACKENDS: readonly [string, () => Promise<PrefixBackend>][] = [
  ['sqlite', sqliteBackend],
  ['mysql', mysqlBackend],
  ['postgres', postgresBackend],
];

describe.each(BACKENDS)('%s: two table prefixes in one database', (name, create) => {
  const suffix = randomBytes(4).toString('hex');
  let backend: PrefixBackend;
  let billing: SqlStore<unknown>;
  let shop: SqlStore<unknown>;

  beforeAll(async () => {
    backend = await create();
  });
  afterAll(async () => {
    await billing?.close();
    await shop?.close();
    await backend?.drop();
  });

  it('payonce migrate --table-prefix billing_ --only receipts,outbox creates only those tables and the ledger, prefixed', async () => {
    const out: string[] = [];
    await runMigrate(
      backend.url,
      { out: (line) => out.push(line) },
      { tablePrefix: 'billing_', only: ['receipts', 'outbox'] },
    );
    expect(out[0]).toContain('(table prefix billing_)');
    expect(await backend.tables()).toEqual([
      'billing_effects',
      'billing_migration',
      'billing_migration_lock',
      'billing_outbox',
      'billing_outbox_order',
      'billing_outbox_trace',
      'billing_receipt_trace',
      'billing_receipts',
    ]);
  });

  it('both prefixes migrate in full, independently, each with its own ledger', async () => {
    billing = await backend.open('billing_');
    shop = await backend.open('shop_');
    const billingReport = await billing.migrate();
    expect(billingReport.alreadyApplied).toContain('0003-outbox');
    expect(billingReport.applied).toContain('0002-payments');
    const shopReport = await shop.migrate();
    expect(shopReport.alreadyApplied).toEqual([]);
    expect(shopReport.applied).toContain('0001-receipts');
    expect((await billing.migrate()).applied).toEqual([]);
    await billing.checkSchema();
    await shop.checkSchema();
    const tables = await backend.tables();
    expect(tables).toContain('billing_orders');
    expect(tables).toContain('shop_payme_transactions');
    expect(tables.every((name) => name.startsWith('billing_') || name.startsWith('shop_'))).toBe(true);
  });

  it('receipts: a receipt under one prefix is not seen under the other; stuck count and purge per prefix', async () => {
    const key = new RequestKey('prefix', `evt_${suffix}`);
    let runs = 0;
    const handler = async () => {
      runs++;
    };
    const first = await new IdempotencyGuard(billing).run(key, handler);
    const again = await new IdempotencyGuard(billing).run(key, handler);
    expect([first.isReplay, again.isReplay, runs]).toEqual([false, true, 1]);
    expect((await billing.find(key))?.status).toBe('completed');
    expect(await shop.find(key)).toBeNull();
    expect((await new IdempotencyGuard(shop).run(key, handler)).isReplay).toBe(false);
    expect(runs).toBe(2);
    expect(await sqlStuckReceipts(billing, { olderThanMs: 1 })()).toBe(0);
    expect(await billing.purgeBatch(Date.now() + 60_000, 10)).toBe(1);
    expect(await billing.find(key)).toBeNull();
    expect((await shop.find(key))?.status).toBe('completed');
  });

  // SQLite has no batching (better-sqlite3 runs every statement synchronously).
  it.skipIf(name === 'sqlite')(
    'batched claims and completions (PostgreSQL, MySQL) use the prefixed table',
    async () => {
      const batched = await (backend.openBatched('shop_') as Promise<SqlStore<unknown>>);
      try {
        const guard = new IdempotencyGuard(batched);
        const keys = Array.from({ length: 12 }, (_, i) => new RequestKey('prefix-batch', `evt_${i}`));
        const first = await Promise.all(keys.map((key) => guard.run(key, async () => {})));
        const again = await Promise.all(keys.map((key) => guard.run(key, async () => {})));
        expect(first.every((o) => !o.isReplay) && again.every((o) => o.isReplay)).toBe(true);
        expect((await shop.find(keys[0] as RequestKey))?.status).toBe('completed');
        expect(await billing.find(keys[0] as RequestKey)).toBeNull();
      } finally {
        await batched.close();
      }
    },
  );

  it('outbox, worker claim, relay claim and finish, effect ledger under the prefix', async () => {
    const outbox = new Outbox(billing);
    await billing.transaction((trx) => outbox.enqueueOnce(trx, 'p.topic', 'k1', { n: 1 }, { aggregateKey: 'agg' }));
    const job = await outbox.find('p.topic', 'k1');
    expect(job?.status).toBe('queued');
    expect(await new Outbox(shop).find('p.topic', 'k1')).toBeNull();
    const claimed = await claimJob(billing, { topics: ['p.topic'], workerId: 'w', nowMs: Date.now(), leaseMs: 60_000 });
    expect(claimed?.id).toBe(job?.id);
    await billing.transaction((trx) => outbox.enqueueOnce(trx, 'p.relay', 'k2', { n: 2 }, { aggregateKey: 'agg' }));
    const request = { topics: ['p.relay'], relayId: 'r', nowMs: Date.now(), leaseMs: 60_000, batchSize: 10 };
    expect(await claimRelayBatch(shop, request)).toEqual([]);
    const messages = await claimRelayBatch(billing, request);
    expect(messages.map((m) => m.topic)).toEqual(['p.relay']);
    expect(await finishRelayed(billing, 'r', messages, { kind: 'sent' }, Date.now())).toBe(1);
    expect((await outbox.find('p.relay', 'k2'))?.status).toBe('done');
    const effect = () => runEffectOnce(billing, `effect_${suffix}`, async () => 'applied');
    expect((await effect()).kind).toBe('applied');
    expect((await effect()).kind).toBe('already-applied');
    expect(await effectApplied(billing, `effect_${suffix}`)).toBe(true);
    expect(await effectApplied(shop, `effect_${suffix}`)).toBe(false);
  });

  it('delivery journal: record, lookup and purge under the prefix', async () => {
    const journal = new SqlDeliveryJournal(billing);
    await journal.record({
      id: `d_${suffix}`,
      receivedAtMs: 1_000,
      provider: 'prefix',
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
    expect(await new SqlDeliveryJournal(shop).forPayment('order-1')).toEqual([]);
    expect(await journal.purge({ olderThan: 2_000 })).toBe(1);
  });

  it('payments: order, checkout attempt and queries under the prefix', async () => {
    const payments = new Payments(billing, { provider: new InMemoryPaymentProvider() });
    const order = await payments.createOrder('customer-1', { amountMinor: 1999, currency: 'EUR' });
    expect((await payments.openCheckout(order.id, 'customer-1')).kind).toBe('attempt');
    expect(await payments.attemptsOf(order.id)).toHaveLength(1);
    expect((await payments.findOrder(order.id))?.id).toBe(order.id);
    const elsewhere = new Payments(shop, { provider: new InMemoryPaymentProvider() });
    expect(await elsewhere.findOrder(order.id)).toBeNull();
  });

  it('the Payme engine keeps its transactions and keys under the prefix', async () => {
    const bench = paymeBench(billing, { keys: undefined, keyProvider: storedPaymeKeys(billing, { initialKeys: KEY }) });
    const order = bench.addOrder();
    const id = newPaymeId();
    await bench.call('CreateTransaction', { id, time: PAYME_TIME, amount: AMOUNT, account: order.account });
    expect((await bench.call('PerformTransaction', { id })).result?.state).toBe(2);
    expect(await bench.fulfilments(id)).toBe(1);
    const other = paymeBench(shop, { keys: undefined, keyProvider: storedPaymeKeys(shop, { initialKeys: KEY }) });
    expect((await other.call('CheckTransaction', { id })).error?.code).toBe(-31003);
  });

  it('a joined transaction (payonce/tx/kysely): receipt and outbox row commit under the prefix, a throw rolls both back', async () => {
    const guard = new IdempotencyGuard(billing);
    const outbox = new Outbox(billing);
    const key = (id: string) => new RequestKey('prefix-joined', id);
    const db = backend.appDb(billing);
    const onPaid = (id: string) =>
      db.transaction().execute((trx) =>
        runInKyselyTransaction(guard, trx, key(id), async (_trx, _claim, payonceTx) => {
          await outbox.enqueueOnce(payonceTx, 'order.fulfil', `order:${id}`, {});
        }),
      );
    expect((await onPaid('evt_1')).isReplay).toBe(false);
    expect((await onPaid('evt_1')).isReplay).toBe(true);
    await expect(
      db.transaction().execute((trx) =>
        runInKyselyTransaction(guard, trx, key('evt_2'), async () => {
          throw new Error('declined');
        }),
      ),
    ).rejects.toThrow('declined');
    expect((await billing.find(key('evt_1')))?.status).toBe('completed');
    expect(await billing.find(key('evt_2'))).toBeNull();
    expect((await outbox.find('order.fulfil', 'order:evt_1'))?.status).toBe('queued');
    expect(await shop.find(key('evt_1'))).toBeNull();
    if (db !== billing.db) await db.destroy();
  });

  it('no table, index, constraint, sequence, trigger or function named payonce_… exists in the database', async () => {
    const objects = await backend.objects();
    expect(objects.length).toBeGreaterThan(40);
    expect(objects.filter((name) => name.includes('payonce'))).toEqual([]);
    expect(objects.some((name) => name.startsWith('billing_') && name !== 'billing_receipts')).toBe(true);
    expect(objects.some((name) => name.startsWith('shop_') && name !== 'shop_receipts')).toBe(true);
  });
});

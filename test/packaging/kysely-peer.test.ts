import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresNamespace, POSTGRES_TEST_URL } from '../contract/backends/postgres.js';
import { type PackedApp, packedApp } from './support/packed-app.js';

// kysely is a peer dependency of payonce (>=0.28.0 <0.30.0): an application on kysely 0.29 gets ONE copy, shared by
// its own Kysely and payonce, and its `Transaction` meets payonce's types. The packed library (dist/: `npm run build`
// first) is installed with kysely@0.29 and better-sqlite3 into an empty app, whose file is type-checked (strict) and
// run on SQLite.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
// The workspace's better-sqlite3, linked into the app after the install (its native build is reused: npm would run
// its install script, which downloads a prebuilt binary or compiles one).
const BETTER_SQLITE3 = join(ROOT, 'node_modules/better-sqlite3');

const MAIN = `
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, type Transaction } from 'kysely';
import { IdempotencyGuard, RequestKey } from 'payonce';
import { Outbox } from 'payonce/outbox';
import { SqliteStore } from 'payonce/sqlite';
import { runInKyselyTransaction, withKyselyTransaction } from 'payonce/tx/kysely';

interface AppDatabase {
  orders: { id: string; paid: number };
}

const store = await SqliteStore.open('app.db');
await store.migrate();
const guard = new IdempotencyGuard(store);
const outbox = new Outbox(store);

const db = new Kysely<AppDatabase>({ dialect: new SqliteDialect({ database: new Database('app.db') }) });
await db.schema.createTable('orders').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('paid', 'integer').execute();
await db.insertInto('orders').values({ id: 'ord_1', paid: 0 }).execute();

const deliver = (eventId: string, fail: boolean) =>
  db.transaction().execute((trx) =>
    runInKyselyTransaction(guard, trx, new RequestKey('stripe', eventId), async (own, _claim, payonceTx) => {
      const mine: Transaction<AppDatabase> = own;
      // @ts-expect-error payonce's view is a typed Kysely Transaction, not any
      const notANumber: number = payonceTx;
      // @ts-expect-error the handler's trx is the application's own: payonce's tables are not in its type
      mine.selectFrom('payonce_receipts');
      await mine.updateTable('orders').set({ paid: 1 }).where('id', '=', 'ord_1').execute();
      await outbox.enqueueOnce(payonceTx, 'order.fulfil', eventId, { orderId: 'ord_1' });
      if (fail) throw new Error('declined');
    }),
  );

const first = await deliver('evt_1', false);
const again = await deliver('evt_1', false);
const failed = await deliver('evt_2', true).then(
  () => 'resolved',
  (error: unknown) => (error instanceof Error ? error.message : String(error)),
);
const enqueued = await db
  .transaction()
  .execute((trx) => withKyselyTransaction(store, trx, (payonceTx) => outbox.enqueueOnce(payonceTx, 'order.audit', 'a1', {})));
const order = await db.selectFrom('orders').select('paid').where('id', '=', 'ord_1').executeTakeFirstOrThrow();
console.log(
  JSON.stringify({
    first: first.isReplay,
    again: again.isReplay,
    failed,
    paid: order.paid,
    fulfil: (await outbox.find('order.fulfil', 'evt_1')) !== null,
    rolledBack: (await outbox.find('order.fulfil', 'evt_2')) === null && (await store.find(new RequestKey('stripe', 'evt_2'))) === null,
    receipt: (await store.find(new RequestKey('stripe', 'evt_1')))?.status,
    audit: enqueued.kind,
  }),
);
await db.destroy();
await store.close();
`;

// The same on PostgreSQL (kysely 0.29's PostgresDialect under payonce's PostgresStore and under the app's own Kysely),
// run only: the type check is main.ts's.
const POSTGRES = `
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { IdempotencyGuard, RequestKey } from 'payonce';
import { Outbox } from 'payonce/outbox';
import { PostgresStore } from 'payonce/postgres';
import { runInKyselyTransaction } from 'payonce/tx/kysely';

const [url, schema] = process.argv.slice(2);
const options = '-c search_path=' + schema;
const store = await PostgresStore.connect({ connectionString: url, options });
await store.migrate();
const guard = new IdempotencyGuard(store);
const outbox = new Outbox(store);
const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, options }) }) });
await db.schema.createTable('orders').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('paid', 'boolean').execute();
await db.insertInto('orders').values({ id: 'ord_1', paid: false }).execute();
const deliver = () =>
  db.transaction().execute((trx) =>
    runInKyselyTransaction(guard, trx, new RequestKey('stripe', 'evt_1'), async (trx, _claim, payonceTx) => {
      await trx.updateTable('orders').set({ paid: true }).where('id', '=', 'ord_1').execute();
      await outbox.enqueueOnce(payonceTx, 'order.fulfil', 'evt_1', {});
    }),
  );
const first = await deliver();
const again = await deliver();
const order = await db.selectFrom('orders').select('paid').executeTakeFirstOrThrow();
console.log(JSON.stringify({ first: first.isReplay, again: again.isReplay, paid: order.paid, fulfil: (await outbox.find('order.fulfil', 'evt_1')) !== null }));
await db.destroy();
await store.close();
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    // The libraries' own .d.ts are not re-checked (over 60 s on a busy machine); main.ts is, strictly, and the
    // expected errors in it fail the check should payonce's types degrade to any against kysely 0.29.
    skipLibCheck: true,
    types: [],
    outDir: 'out',
  },
  files: ['main.ts'],
};

let app: PackedApp;
beforeAll(async () => {
  app = await packedApp(['payonce'], ['kysely@0.29', '@types/better-sqlite3@7', 'pg@8']);
  writeFileSync(join(app.dir, 'postgres.mjs'), POSTGRES);
  symlinkSync(BETTER_SQLITE3, join(app.dir, 'node_modules/better-sqlite3'), 'dir');
  writeFileSync(join(app.dir, 'main.ts'), MAIN);
  writeFileSync(join(app.dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
}, 240_000);
afterAll(() => app?.remove());

/** Every kysely package.json under the app's node_modules, nested ones included. */
function kyselyCopies(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(
      (entry) => entry.isFile() && entry.name === 'package.json' && entry.parentPath.endsWith('/node_modules/kysely'),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('payonce with the application on kysely 0.29', () => {
  it('installs ONE kysely, the 0.29 the application asked for', async () => {
    const copies = kyselyCopies(join(app.dir, 'node_modules'));
    expect(copies).toHaveLength(1);
    expect((JSON.parse(readFileSync(copies[0] as string, 'utf8')) as { version: string }).version).toMatch(/^0\.29\./);
    const ls = await app.exec('npm', ['ls', 'kysely', '--all', '--parseable']);
    expect(new Set(ls.stdout.trim().split('\n'))).toEqual(new Set([join(app.dir, 'node_modules/kysely')]));
  });

  it("type-checks the application's Transaction against payonce's types, and commits receipt, order and outbox row together", async () => {
    const tsc = await app.exec(process.execPath, [TSC, '-p', 'tsconfig.json']);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
    const run = await app.exec(process.execPath, ['out/main.js']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      first: false,
      again: true,
      failed: 'declined',
      paid: 1,
      fulfil: true,
      rolledBack: true,
      receipt: 'completed',
      audit: 'enqueued',
    });
  }, 180_000);

  it("runs payonce's PostgresStore and the app's own PostgresDialect on kysely 0.29", async () => {
    const ns = await createPostgresNamespace();
    try {
      const run = await app.exec(process.execPath, ['postgres.mjs', POSTGRES_TEST_URL, ns.schema]);
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({ first: false, again: true, paid: true, fulfil: true });
    } finally {
      await ns.drop();
    }
  }, 120_000);
});

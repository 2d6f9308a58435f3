import Database from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../packages/cli/src/cli-io.js';
import { runCli } from '../../../packages/cli/src/run-cli.js';
import { migrationSql } from '../../../packages/payonce/src/stores/sql/migration-script.js';
import { ALL_MIGRATIONS } from '../../../packages/payonce/src/stores/sql/migrations/all-migrations.js';
import type { SqlDialectName } from '../../../packages/payonce/src/stores/sql/sql-dialect.js';
import { SQL_DIALECTS, type SqlNamespace, sqlNamespaces } from './sql-namespaces.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

const LEDGER = ['payonce_migration', 'payonce_migration_lock'];
const RECEIPTS = ['payonce_receipt_trace', 'payonce_receipts'];
const OUTBOX = ['payonce_effects', 'payonce_outbox', 'payonce_outbox_order', 'payonce_outbox_trace'];
const JOURNAL = ['payonce_webhook_deliveries'];
const PAYMENTS = [
  'payonce_orders',
  'payonce_payment_attempt_trace',
  'payonce_payment_attempts',
  'payonce_payment_events',
  'payonce_payment_refunds',
];
const SERVICE = [
  'payonce_admin_actions',
  'payonce_service_fulfilments',
  'payonce_service_order_traces',
  'payonce_service_refunds',
];
const PAYME = ['payonce_payme_keys', 'payonce_payme_transactions'];
const CLICK = ['payonce_click_transactions'];
const UZUM = ['payonce_uzum_transactions'];
const TELEGRAM = ['payonce_telegram_charges'];
const ALL_TABLES = [
  ...LEDGER,
  ...RECEIPTS,
  ...OUTBOX,
  ...JOURNAL,
  ...PAYMENTS,
  ...SERVICE,
  ...PAYME,
  ...CLICK,
  ...UZUM,
  ...TELEGRAM,
].sort();
const NAMES = ALL_MIGRATIONS.map((m) => m.name);

/** The tables of the namespace `db` is connected to, sorted. */
async function tables<DB>(dialect: SqlDialectName, kysely: Kysely<DB>): Promise<string[]> {
  const db = kysely as unknown as Kysely<unknown>;
  const query =
    dialect === 'postgres'
      ? sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema()`
      : dialect === 'mysql'
        ? sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = database()`
        : sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`;
  return (await query.execute(db)).rows.map((row) => row.name).sort();
}

/** Every column (with its type), index, sequence and trigger of the namespace, as sorted strings. */
async function shape<DB>(dialect: SqlDialectName, kysely: Kysely<DB>): Promise<string[]> {
  const db = kysely as unknown as Kysely<unknown>;
  let rows: { item: string }[];
  if (dialect === 'postgres') {
    rows = (
      await sql<{ item: string }>`
        select 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable as item
          from information_schema.columns where table_schema = current_schema()
        union all select 'index ' || tablename || '.' || indexname from pg_indexes where schemaname = current_schema()
        union all select 'sequence ' || sequence_name from information_schema.sequences
          where sequence_schema = current_schema()
        union all select 'trigger ' || trigger_name || ' ' || event_manipulation from information_schema.triggers
          where trigger_schema = current_schema()`.execute(db)
    ).rows;
  } else if (dialect === 'mysql') {
    rows = (
      await sql<{ item: string }>`
        select concat('column ', table_name, '.', column_name, ' ', column_type, ' ', is_nullable) as item
          from information_schema.columns where table_schema = database()
        union all select distinct concat('index ', table_name, '.', index_name) from information_schema.statistics
          where table_schema = database()`.execute(db)
    ).rows;
  } else {
    rows = (
      await sql<{ item: string }>`
        select 'column ' || m.name || '.' || p.name || ' ' || p.type || ' ' || p."notnull" as item
          from sqlite_master m join pragma_table_info(m.name) p where m.type = 'table' and m.name not like 'sqlite_%'
        union all select m.type || ' ' || m.name from sqlite_master m where m.type in ('index', 'trigger')`.execute(db)
    ).rows;
  }
  return rows.map((row) => row.item).sort();
}

/** Applies `script` to the namespace the way a team's migration tool would: one multi-statement run, no payonce. */
async function applyByHand(ns: SqlNamespace, script: string): Promise<void> {
  if (ns.dialect === 'sqlite') {
    const db = new Database(ns.url);
    try {
      db.exec(script);
    } finally {
      db.close();
    }
  } else if (ns.dialect === 'postgres') {
    const client = new pg.Client({ connectionString: ns.url });
    await client.connect();
    try {
      await client.query(script);
    } finally {
      await client.end();
    }
  } else {
    const connection = await mysql.createConnection({ uri: ns.url, multipleStatements: true });
    try {
      await connection.query(script);
    } finally {
      await connection.end();
    }
  }
}

for (const dialect of SQL_DIALECTS) {
  describe(`${dialect}: migrate --only and --print-sql`, () => {
    const namespaces: SqlNamespace[] = [];
    const fresh = async () => {
      const ns = await sqlNamespaces[dialect]();
      namespaces.push(ns);
      return ns;
    };
    afterAll(async () => {
      await Promise.all(namespaces.map((ns) => ns.drop()));
    });

    it('`--only receipts,outbox,journal` creates exactly those tables; a later full run adds the rest, in order', async () => {
      const ns = await fresh();
      const io = capture();
      expect(await runCli(['migrate', '--database-url', ns.url, '--only', 'receipts,outbox,journal'], io)).toBe(0);
      const partial = ['0001-receipts', '0003-outbox', '0004-webhook-deliveries'];
      const partialAll = [
        ...partial,
        '0005-receipts-provider-purge',
        '0008-outbox-order',
        '0009-receipts-finish-notify',
        '0016-outbox-trace',
        '0018-receipt-trace',
      ];
      const partialApplied = NAMES.filter((name) => partialAll.includes(name));
      expect(io.lines.filter((line) => line.startsWith('applied '))).toEqual(partialApplied.map((n) => `applied ${n}`));
      expect(io.lines).toContain(
        `not selected, not applied: ${NAMES.filter((n) => !partialAll.includes(n)).join(', ')}`,
      );
      const store = await ns.open();
      expect(await tables(dialect, store.db)).toEqual([...LEDGER, ...RECEIPTS, ...OUTBOX, ...JOURNAL].sort());

      const full = await store.migrate();
      expect(full.applied).toEqual(NAMES.filter((name) => !partialAll.includes(name)));
      expect(full.alreadyApplied).toEqual(partialApplied);
      expect(full.notSelected).toEqual([]);
      expect(await tables(dialect, store.db)).toEqual(ALL_TABLES);
      const again = await store.migrate({ only: ['outbox'] });
      expect(again).toEqual({ applied: [], alreadyApplied: NAMES, notSelected: [] });
    });

    it('`--only payments` pulls in receipts and outbox and says so; store.migrate({ only }) adds groups run by run', async () => {
      const ns = await fresh();
      const io = capture();
      expect(await runCli(['migrate', '--database-url', ns.url, '--only', 'payments'], io)).toBe(0);
      expect(io.lines).toContain('groups: receipts, outbox, payments');
      expect(io.lines.some((line) => line.startsWith('payments needs receipts ('))).toBe(true);
      expect(io.lines.some((line) => line.startsWith('payments needs outbox ('))).toBe(true);
      const store = await ns.open();
      expect(await tables(dialect, store.db)).toEqual([...LEDGER, ...RECEIPTS, ...OUTBOX, ...PAYMENTS].sort());
      const journal = await store.migrate({ only: ['journal'] });
      expect(journal.applied).toEqual(['0004-webhook-deliveries']);
      expect(journal.notSelected).toEqual([
        '0006-service-fulfilments',
        '0007-admin-actions',
        '0011-payme',
        '0012-click',
        '0013-uzum',
        '0014-service-order-traces',
        '0015-telegram-charges',
      ]);
      expect((await store.migrate({ only: ['service'] })).applied).toEqual([
        '0006-service-fulfilments',
        '0007-admin-actions',
        '0014-service-order-traces',
      ]);
      expect((await store.migrate({ only: ['payme'] })).applied).toEqual(['0011-payme']);
      expect((await store.migrate({ only: ['click'] })).applied).toEqual(['0012-click']);
      expect((await store.migrate({ only: ['uzum'] })).applied).toEqual(['0013-uzum']);
      expect((await store.migrate({ only: ['telegram'] })).applied).toEqual(['0015-telegram-charges']);
      expect(await tables(dialect, store.db)).toEqual(ALL_TABLES);
    });

    it('`--print-sql` applied by hand gives the same schema as migrate, and a later migrate has nothing to apply', async () => {
      const migrated = await fresh();
      expect(await runCli(['migrate', '--database-url', migrated.url], capture())).toBe(0);
      const byHand = await fresh();
      const io = capture();
      expect(await runCli(['migrate', '--print-sql', '--dialect', dialect], io)).toBe(0);
      const script = io.lines.join('\n');
      expect(script).toBe(migrationSql(dialect).replace(/\n$/, ''));
      for (const name of NAMES) expect(script).toContain(`-- payonce migration ${name} (group `);
      await applyByHand(byHand, script);
      await applyByHand(byHand, script); // idempotent, as a re-run migration tool would apply it
      const reference = await migrated.open();
      const store = await byHand.open();
      expect(await shape(dialect, store.db)).toEqual(await shape(dialect, reference.db));
      expect(await store.migrate()).toEqual({ applied: [], alreadyApplied: NAMES, notSelected: [] });
    });

    it('`--print-sql --only journal` applied by hand, then `payonce migrate` adds the other groups', async () => {
      const ns = await fresh();
      await applyByHand(ns, migrationSql(dialect, { only: ['journal'] }));
      const store = await ns.open();
      expect(await tables(dialect, store.db)).toEqual([...LEDGER, ...JOURNAL].sort());
      const report = await store.migrate();
      expect(report.alreadyApplied).toEqual(['0004-webhook-deliveries']);
      expect(report.applied).toEqual(NAMES.filter((name) => name !== '0004-webhook-deliveries'));
      expect(await tables(dialect, store.db)).toEqual(ALL_TABLES);
    });
  });
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { planMigrate } from '../../packages/payonce/src/cli/migrate-flags.js';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { migrate } from '../../packages/payonce/src/stores/sql/migrate.js';
import {
  MIGRATION_GROUPS,
  type MigrationGroup,
  migrationGroupOf,
  selectMigrations,
} from '../../packages/payonce/src/stores/sql/migration-groups.js';
import { migrationSql } from '../../packages/payonce/src/stores/sql/migration-script.js';
import { ALL_MIGRATIONS } from '../../packages/payonce/src/stores/sql/migrations/all-migrations.js';
import { schema } from '../../packages/payonce/src/stores/sql/schema.js';

const capture = (): CliIo & { out: (line: string) => void; stdout: string[]; stderr: string[] } => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (line) => stdout.push(line), err: (line) => stderr.push(line) };
};

const NAMES = ALL_MIGRATIONS.map((m) => m.name);

describe('migration groups', () => {
  it('every released migration belongs to exactly one group, and all groups together select every migration', () => {
    for (const name of NAMES) expect(migrationGroupOf(name), name).toBeDefined();
    const owned = MIGRATION_GROUPS.flatMap((group) =>
      selectMigrations([group]).migrations.filter((name) => migrationGroupOf(name) === group),
    );
    expect([...owned].sort()).toEqual([...NAMES].sort());
    expect(selectMigrations().migrations).toEqual(NAMES);
  });

  it('pulls in what a group needs, transitively, and says why; http is receipts', () => {
    expect(selectMigrations(['http'])).toEqual({
      groups: ['receipts', 'http'],
      pulledIn: [{ group: 'receipts', neededBy: 'http', because: expect.stringContaining('payonce_receipts') }],
      migrations: [
        '0001-receipts',
        '0005-receipts-provider-purge',
        '0009-receipts-finish-notify',
        '0018-receipt-trace',
      ],
    });
    const service = selectMigrations(['service']);
    expect(service.groups).toEqual(['receipts', 'outbox', 'journal', 'payments', 'service']);
    expect(service.pulledIn.map((p) => `${p.neededBy}>${p.group}`)).toEqual([
      'service>payments',
      'service>journal',
      'payments>receipts',
      'payments>outbox',
    ]);
    expect(selectMigrations(['outbox']).pulledIn).toEqual([]);
  });

  it('refuses an unknown group, an empty list and a non-array with InvalidOption naming the groups', () => {
    for (const only of [['receipts', 'orders'], [], 'receipts'] as unknown as MigrationGroup[][]) {
      const error = (() => {
        try {
          selectMigrations(only);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(InvalidOption);
      expect((error as InvalidOption).option).toBe('only');
      expect((error as Error).message).toContain('receipts, http, outbox, journal, payments, service');
    }
    expect(() => schema('postgres', { only: ['orders' as MigrationGroup] })).toThrow(InvalidOption);
    expect(() => migrationSql('postgres', { only: [] })).toThrow(InvalidOption);
  });

  it('store migrate refuses a bad group before touching the database', async () => {
    const untouchable = new Proxy({}, { get: () => expect.unreachable('the database was used') });
    await expect(migrate(untouchable as never, 'sqlite', { only: ['nope' as MigrationGroup] })).rejects.toThrow(
      InvalidOption,
    );
  });

  it('schema({ only }) and migrationSql({ only }) hold the selected migrations only', () => {
    expect(schema('sqlite', { only: ['journal'] })).toEqual(ALL_MIGRATIONS[3]?.statements.sqlite);
    const script = migrationSql('mysql', { only: ['outbox'] });
    expect(script).toContain('-- payonce migration 0003-outbox (group outbox)');
    expect(script).toContain('-- payonce migration 0008-outbox-order (group outbox)');
    expect(script).not.toContain('payonce_receipts');
    expect(script).toContain('create table if not exists payonce_migration (');
    expect(script).toContain("insert ignore into payonce_migration (name, `timestamp`) values ('0008-outbox-order'");
  });
});

describe('payonce migrate flags (@payonce/cli)', () => {
  it('--print-sql --dialect prints the script without a database', async () => {
    const io = capture();
    expect(await runCli(['migrate', '--print-sql', '--dialect', 'postgres', '--only', 'journal'], io)).toBe(0);
    expect(`${io.stdout.join('\n')}\n`).toBe(migrationSql('postgres', { only: ['journal'] }));
  });

  it('--table-prefix: --print-sql --dialect sqlite prints prefixed SQL; migrate --only creates only those tables, prefixed', async () => {
    const printed = capture();
    expect(await runCli(['migrate', '--print-sql', '--dialect', 'sqlite', '--table-prefix', 'billing_'], printed)).toBe(
      0,
    );
    const script = `${printed.stdout.join('\n')}\n`;
    expect(script).toBe(migrationSql('sqlite', { tablePrefix: 'billing_' }));
    expect(script).toContain('create table if not exists billing_receipts');
    expect(script).not.toMatch(/payonce_/);
    const dir = await mkdtemp(join(tmpdir(), 'payonce-prefix-cli-'));
    try {
      const file = join(dir, 'shared.db');
      const io = capture();
      const args = ['migrate', '--database-url', file, '--table-prefix', 'billing_', '--only', 'receipts,outbox'];
      expect(await runCli(args, io)).toBe(0);
      expect(io.stdout[0]).toContain('(table prefix billing_)');
      const db = new Database(file, { readonly: true });
      const tables = db
        .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite%' order by 1")
        .all();
      db.close();
      expect((tables as { name: string }[]).map((row) => row.name)).toEqual([
        'billing_effects',
        'billing_migration',
        'billing_migration_lock',
        'billing_outbox',
        'billing_outbox_order',
        'billing_outbox_trace',
        'billing_receipt_trace',
        'billing_receipts',
      ]);
      const bad = capture();
      expect(await runCli(['migrate', '--database-url', file, '--table-prefix', 'Billing-'], bad)).toBe(2);
      expect(bad.stderr.join('\n')).toContain('tablePrefix: must be 1-24 lower-case letters');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [['--only', 'receipts,orders', '--database-url', ':memory:'], 'unknown migration group "orders"'],
    [['--only', ',', '--database-url', ':memory:'], 'names no group'],
    [['--print-sql', '--dialect', 'oracle'], 'must be sqlite, postgres or mysql, got oracle'],
    [['--print-sql'], '--print-sql needs --dialect sqlite, postgres or mysql'],
    [['--dialect', 'mysql', '--database-url', ':memory:'], 'is for --print-sql only'],
    [['--print-sql', '--dialect', 'mysql', '--database-url', 'x.db'], '--print-sql connects to no database'],
  ])('%j exits 2 saying what is wrong', async (args, message) => {
    const io = capture();
    expect(await runCli(['migrate', ...args], io)).toBe(2);
    expect(io.stderr.join('\n')).toContain(message);
    expect(io.stdout).toEqual([]);
  });

  it('planMigrate takes repeated --only values and keeps migrate as the default', () => {
    expect(planMigrate({ only: ['receipts', 'outbox,journal'] })).toEqual({
      printSql: false,
      options: { only: ['receipts', 'outbox', 'journal'] },
    });
    expect(planMigrate({})).toEqual({ printSql: false, options: {} });
  });
});

import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { planMigrate } from '../../../../packages/payonce/src/cli/migrate-flags.js';
import { migrationSql } from '../../../../packages/payonce/src/stores/sql/migration-script.js';
import { schema } from '../../../../packages/payonce/src/stores/sql/schema.js';
import { SQL_DIALECT_NAMES } from '../../../../packages/payonce/src/stores/sql/sql-dialect.js';
import { onSchema, qualifyStatement } from '../../../../packages/payonce/src/stores/sql/table-namespace.js';
import {
  checkTablePrefix,
  MAX_TABLE_PREFIX_LENGTH,
  prefixedName,
} from '../../../../packages/payonce/src/stores/sql/table-prefix.js';
import { SqliteStore } from '../../../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { resolveServiceConfig } from '../../../../packages/service/src/service-config.js';

const BAD_PREFIXES: readonly unknown[] = [
  '',
  'Billing_',
  '1billing_',
  'bill-ing_',
  'bill ing',
  'a"b',
  'x'.repeat(25),
  7,
];

/** A Kysely instance that compiles only (no connection is ever opened). */
function compiler(): Kysely<{ payonce_receipts: { provider: string }; orders: { id: string } }> {
  return new Kysely({ dialect: new SqliteDialect({ database: async () => ({}) as never }) });
}

describe('table prefix', () => {
  it('checkTablePrefix: absent is payonce_; bad prefixes are InvalidOption (tablePrefix) with the rule', () => {
    expect(checkTablePrefix(undefined)).toBe('payonce_');
    expect(checkTablePrefix(null)).toBe('payonce_');
    expect(checkTablePrefix('billing_')).toBe('billing_');
    expect(checkTablePrefix('_b2')).toBe('_b2');
    expect(checkTablePrefix('x'.repeat(MAX_TABLE_PREFIX_LENGTH))).toHaveLength(24);
    for (const bad of BAD_PREFIXES) {
      expect(() => checkTablePrefix(bad), String(bad)).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTION',
          option: 'tablePrefix',
          message: expect.stringContaining('lower-case letters, digits or _'),
        }),
      );
    }
  });

  it('every entry point refuses a bad prefix with InvalidOption before doing anything', async () => {
    await expect(SqliteStore.open(':memory:', { tablePrefix: 'Bad-' })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      option: 'tablePrefix',
    });
    expect(() => migrationSql('sqlite', { tablePrefix: 'Bad-' })).toThrow(/tablePrefix/);
    expect(() => schema('mysql', { tablePrefix: '' })).toThrow(/tablePrefix/);
    expect(() => planMigrate({ printSql: true, dialect: 'sqlite', tablePrefix: '9x' })).toThrow(/tablePrefix/);
    expect(() => resolveServiceConfig({ databaseUrl: ':memory:', databaseTablePrefix: 'X_' })).toThrow(/tablePrefix/);
  });

  it('prefixedName renames payonce_ names only', () => {
    expect(prefixedName('billing_', 'payonce_receipts')).toBe('billing_receipts');
    expect(prefixedName('billing_', 'orders')).toBe('orders');
    expect(prefixedName('payonce_', 'payonce_receipts')).toBe('payonce_receipts');
  });

  it('qualifyStatement renames every payonce_ name (index, trigger, function, channel) and qualifies tables with the schema', () => {
    const ddl = [
      'create index if not exists payonce_receipts_finished_at_idx on payonce_receipts (finished_at)',
      'create trigger payonce_receipt_finished after update on payonce_receipts for each row execute function payonce_receipt_finished_notify()',
      "select pg_notify('payonce_receipt_finished', '')",
      'select my_payonce_thing from orders',
    ].join('\n');
    expect(qualifyStatement('postgres', 'p', ddl, 'billing_')).toBe(
      [
        'create index if not exists billing_receipts_finished_at_idx on "p".billing_receipts (finished_at)',
        'create trigger billing_receipt_finished after update on "p".billing_receipts for each row execute function "p".billing_receipt_finished_notify()',
        "select pg_notify('billing_receipt_finished', '')",
        'select my_payonce_thing from orders',
      ].join('\n'),
    );
    expect(qualifyStatement('sqlite', null, ddl)).toBe(ddl);
  });

  it('--print-sql with a prefix names nothing payonce_; with a schema too on PostgreSQL and MySQL', () => {
    for (const dialect of SQL_DIALECT_NAMES) {
      const script = migrationSql(dialect, { tablePrefix: 'billing_' });
      expect(script, dialect).not.toMatch(/payonce_/);
      expect(script, dialect).toContain('create table if not exists billing_receipts');
      expect(script, dialect).toContain('billing_migration_lock');
      expect(script, dialect).toContain("{ tablePrefix: 'billing_' }");
    }
    const postgres = migrationSql('postgres', { schema: 'acct', tablePrefix: 'billing_', only: ['receipts'] });
    expect(postgres).toContain('create table if not exists "acct".billing_receipts');
    expect(postgres).toContain('execute function "acct".billing_receipt_finished_notify()');
    // MySQL's 0005 looks its index up in the database that holds the table (it was `database()` and a qualified name).
    expect(migrationSql('mysql', { schema: 'acct', tablePrefix: 'billing_', only: ['receipts'] })).toContain(
      "where table_schema = 'acct' and table_name = 'billing_receipts' and index_name = 'billing_receipts_provider_finished_at_idx'",
    );
    expect(schema('sqlite', { tablePrefix: 'billing_', only: ['receipts'] }).join('\n')).not.toMatch(/payonce_/);
  });

  it(`every name payonce derives stays within 63 characters at the longest prefix (${MAX_TABLE_PREFIX_LENGTH})`, () => {
    const prefix = `${'p'.repeat(MAX_TABLE_PREFIX_LENGTH - 1)}_`;
    for (const dialect of SQL_DIALECT_NAMES) {
      const names = migrationSql(dialect, { tablePrefix: prefix }).match(new RegExp(`${prefix}[a-z0-9_]*`, 'g')) ?? [];
      expect(names.length).toBeGreaterThan(50);
      const longest = names.reduce((a, b) => (b.length > a.length ? b : a));
      expect(longest.length, longest).toBeLessThanOrEqual(63);
    }
  });

  it('query-builder statements: payonce tables renamed (FROM, references), other tables untouched, with the schema too', () => {
    const db = compiler();
    const view = onSchema<{ payonce_receipts: { provider: string }; orders: { id: string } }>(db, null, 'billing_');
    expect(onSchema(db, null, 'billing_')).toBe(view);
    expect(onSchema(db, null, 'payonce_')).toBe(db);
    const query = view
      .selectFrom('payonce_receipts')
      .innerJoin('orders', 'orders.id', 'payonce_receipts.provider')
      .select('payonce_receipts.provider')
      .compile();
    expect(query.sql).toBe(
      'select "billing_receipts"."provider" from "billing_receipts" inner join "orders" on "orders"."id" = "billing_receipts"."provider"',
    );
    const both = onSchema<{ payonce_receipts: { provider: string } }>(compiler(), 'acct', 'billing_');
    expect(both.selectFrom('payonce_receipts').select('provider').compile().sql).toBe(
      'select "provider" from "acct"."billing_receipts"',
    );
  });
});

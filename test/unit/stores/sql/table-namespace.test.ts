import { describe, expect, it } from 'vitest';
import { migrationSql } from '../../../../packages/payonce/src/stores/sql/migration-script.js';
import {
  checkSchema,
  qualifiedTable,
  qualifyStatement,
} from '../../../../packages/payonce/src/stores/sql/table-namespace.js';

describe('table namespace', () => {
  it('checkSchema: absent is null; SQLite and bad names are InvalidOption', () => {
    expect(checkSchema(undefined, 'postgres')).toBeNull();
    expect(checkSchema('payonce', 'mysql')).toBe('payonce');
    for (const bad of ['', '1abc', 'a-b', 'a"b', 'x'.repeat(64), 42]) {
      expect(() => checkSchema(bad, 'postgres')).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }));
    }
    expect(() => checkSchema('payonce', 'sqlite')).toThrow(/SQLite/);
    for (const system of ['pg_catalog', 'PG_TOAST', 'information_schema', 'mysql', 'performance_schema', 'sys']) {
      expect(() => checkSchema(system, 'postgres'), system).toThrow(/system schema/);
      expect(() => checkSchema(system, 'mysql'), system).toThrow(/system database/);
    }
    expect(checkSchema('pgx_payonce', 'postgres')).toBe('pgx_payonce');
  });

  it('qualifies tables and the finish function, never index, trigger, constraint or sequence names', () => {
    const ddl = [
      'create index if not exists payonce_receipts_finished_at_idx on payonce_receipts (finished_at)',
      'drop trigger if exists payonce_receipt_finished on payonce_receipts',
      'create trigger payonce_receipt_finished after update on payonce_receipts for each row execute function payonce_receipt_finished_notify()',
      'alter table payonce_payment_attempts add constraint payonce_payment_attempts_order_fk foreign key (order_id) references payonce_orders (id)',
      "select pg_notify('payonce_receipt_finished', '')",
    ].join('\n');
    expect(qualifyStatement('postgres', 'p', ddl)).toBe(
      [
        'create index if not exists payonce_receipts_finished_at_idx on "p".payonce_receipts (finished_at)',
        'drop trigger if exists payonce_receipt_finished on "p".payonce_receipts',
        'create trigger payonce_receipt_finished after update on "p".payonce_receipts for each row execute function "p".payonce_receipt_finished_notify()',
        'alter table "p".payonce_payment_attempts add constraint payonce_payment_attempts_order_fk foreign key (order_id) references "p".payonce_orders (id)',
        "select pg_notify('payonce_receipt_finished', '')",
      ].join('\n'),
    );
    expect(qualifyStatement('mysql', 'p', 'select * from payonce_outbox_order')).toBe(
      'select * from `p`.payonce_outbox_order',
    );
    expect(qualifyStatement('postgres', null, ddl)).toBe(ddl);
    expect(qualifiedTable('postgres', null, 'payonce_receipts')).toBe('payonce_receipts');
  });

  it('--print-sql with a schema creates it first and leaves no payonce table unqualified', () => {
    const script = migrationSql('postgres', { schema: 'payonce' });
    expect(script).toContain('create schema if not exists "payonce";');
    const unqualified = script
      .split('\n')
      .filter((line) => !line.startsWith('--'))
      .filter((line) => /(?:table|into|on|references|function)(?: if not exists| if exists)? payonce_/.test(line));
    expect(unqualified).toEqual([]);
    expect(migrationSql('postgres')).not.toContain('"payonce"');
    expect(() => migrationSql('sqlite', { schema: 'payonce' })).toThrow(/SQLite/);
  });
});

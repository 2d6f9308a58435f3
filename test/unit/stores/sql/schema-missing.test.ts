import { describe, expect, it } from 'vitest';
import { StoreSchemaMissing } from '../../../../packages/payonce/src/core/errors.js';
import { schemaMissingOf } from '../../../../packages/payonce/src/stores/sql/schema-missing.js';

/** An error shaped as the named driver throws it: `message` plus its `code` / `errno`. */
const driverError = (message: string, fields: { code?: string; errno?: number }) =>
  Object.assign(new Error(message), fields);

describe('schemaMissingOf', () => {
  it.each<[string, Error, string]>([
    [
      'PostgreSQL 42P01',
      driverError('relation "payonce.payonce_receipts" does not exist', { code: '42P01' }),
      'payonce.payonce_receipts',
    ],
    ['PostgreSQL 3F000', driverError('schema "payonce" does not exist', { code: '3F000' }), 'payonce'],
    [
      'MySQL 1146',
      driverError("Table 'shop.payonce_receipts' doesn't exist", { code: 'ER_NO_SUCH_TABLE', errno: 1146 }),
      'shop.payonce_receipts',
    ],
    ['MySQL 1049', driverError("Unknown database 'payonce'", { code: 'ER_BAD_DB_ERROR', errno: 1049 }), 'payonce'],
    ['SQLite', driverError('no such table: payonce_receipts', { code: 'SQLITE_ERROR' }), 'payonce_receipts'],
  ])('reads %s as StoreSchemaMissing naming what is missing', (_driver, error, missing) => {
    const found = schemaMissingOf(error, 'postgres', 'payonce');
    expect(found).toBeInstanceOf(StoreSchemaMissing);
    expect([found?.missing, found?.schema, found?.cause]).toEqual([missing, 'payonce', error]);
    expect(found?.message).toContain('`payonce migrate --schema payonce`');
  });

  it('finds the driver error under an ORM error that wraps it (`cause`)', () => {
    const driver = driverError('relation "payonce_receipts" does not exist', { code: '42P01' });
    const wrapped = new Error('Failed query: insert into payonce_receipts …', { cause: driver });
    const found = schemaMissingOf(wrapped, 'postgres', null);
    expect([found?.missing, found?.cause]).toEqual(['payonce_receipts', wrapped]);
    expect(found?.message).toContain('`payonce migrate`');
  });

  it.each<[string, unknown]>([
    ['a connection error', driverError('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' })],
    ['a duplicate key', driverError('duplicate key value violates unique constraint', { code: '23505' })],
    ['a deadlock', driverError('Deadlock found', { code: 'ER_LOCK_DEADLOCK', errno: 1213 })],
    ['another SQLite error', driverError('database is locked', { code: 'SQLITE_BUSY' })],
    ['no error at all', 'no such table: payonce_receipts'],
  ])('is null for %s', (_what, error) => {
    expect(schemaMissingOf(error, 'sqlite', null)).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import {
  type DatabaseTarget,
  describeTarget,
  InvalidDatabaseUrl,
  parseDatabaseUrl,
  redact,
} from '../../../packages/payonce/src/stores/database-url.js';

describe('parseDatabaseUrl', () => {
  it.each<[string, DatabaseTarget]>([
    ['payonce.db', { dialect: 'sqlite', path: 'payonce.db' }],
    ['./data/payonce.db', { dialect: 'sqlite', path: './data/payonce.db' }],
    ['/var/lib/payonce.db', { dialect: 'sqlite', path: '/var/lib/payonce.db' }],
    ['sqlite:payonce.db', { dialect: 'sqlite', path: 'payonce.db' }],
    ['sqlite://payonce.db', { dialect: 'sqlite', path: 'payonce.db' }],
    ['sqlite:///var/lib/payonce.db', { dialect: 'sqlite', path: '/var/lib/payonce.db' }],
    ['file:///var/lib/pay%20once.db', { dialect: 'sqlite', path: '/var/lib/pay once.db' }],
    ['postgres://u:p@db:5432/shop', { dialect: 'postgres', url: 'postgres://u:p@db:5432/shop' }],
    ['postgresql://db/shop?sslmode=require', { dialect: 'postgres', url: 'postgresql://db/shop?sslmode=require' }],
    ['mysql://root@127.0.0.1:3306/shop', { dialect: 'mysql', url: 'mysql://root@127.0.0.1:3306/shop' }],
    ['mariadb://root@127.0.0.1/shop', { dialect: 'mysql', url: 'mysql://root@127.0.0.1/shop' }],
    ['  payonce.db  ', { dialect: 'sqlite', path: 'payonce.db' }],
  ])('%j → %j', (raw, target) => {
    expect(parseDatabaseUrl(raw)).toEqual(target);
  });

  it.each([
    ['', 'is empty'],
    ['redis://127.0.0.1:6379', 'unsupported scheme "redis:"'],
    ['http://example.com/db', 'unsupported scheme "http:"'],
    ['postgres:db', 'unsupported scheme "postgres:"'],
    ['mysql://u:secret@[::1', 'is not a valid URL'],
    ['sqlite:', 'names no SQLite file'],
    ['file://remote-host/share/x.db', 'is not a local file URL'],
  ])('rejects %j with an InvalidDatabaseUrl saying %j', (raw, message) => {
    let thrown: unknown;
    try {
      parseDatabaseUrl(raw);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidDatabaseUrl);
    expect(thrown).toBeInstanceOf(InvalidOption);
    expect((thrown as InvalidDatabaseUrl).option).toBe('databaseUrl');
    expect((thrown as InvalidDatabaseUrl).reason).toContain(message);
    expect((thrown as Error).message).toContain(message);
    expect((thrown as Error).message).not.toContain('secret');
  });
});

describe('redact and describeTarget', () => {
  it('hides passwords in valid and malformed URLs and leaves other text alone', () => {
    expect(redact('postgres://app:s3cret@db/shop')).toBe('postgres://app:***@db/shop');
    expect(redact('mysql://app:s3cret@[bad')).toBe('mysql://app:***@[bad');
    expect(redact('postgres://app@db/shop')).toBe('postgres://app@db/shop');
    expect(redact('/tmp/x.db')).toBe('/tmp/x.db');
    expect(describeTarget({ dialect: 'mysql', url: 'mysql://a:b@h/d' })).toBe('mysql mysql://a:***@h/d');
    expect(describeTarget({ dialect: 'sqlite', path: 'x.db' })).toBe('sqlite x.db');
  });
});

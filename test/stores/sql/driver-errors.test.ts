import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDuplicateKeyError } from '../../../packages/payonce/src/stores/sql/driver-error.js';
import { mysqlDialect } from '../../../packages/payonce/src/stores/sql/mysql-dialect.js';
import { postgresDialect } from '../../../packages/payonce/src/stores/sql/postgres-dialect.js';
import { sqliteDialect } from '../../../packages/payonce/src/stores/sql/sqlite-dialect.js';
import { createMysqlNamespace, type MysqlNamespace } from '../../contract/backends/mysql.js';
import { createPostgresNamespace, type PostgresNamespace } from '../../contract/backends/postgres.js';
import { createSqliteNamespace, type SqliteNamespace } from '../../contract/backends/sqlite.js';

/** The error a statement throws (the tests below expect every statement to fail). */
async function errorOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('statement unexpectedly succeeded');
}

describe('isDuplicateKeyError and transient errors: SQLite (better-sqlite3)', () => {
  let ns: SqliteNamespace;
  let db: Database.Database;
  beforeAll(async () => {
    ns = await createSqliteNamespace();
    db = new Database(ns.path);
    db.pragma('journal_mode = WAL');
    db.exec('create table t (id text primary key, code text unique, note text not null)');
    db.exec("insert into t values ('a', 'x', 'n')");
  });
  afterAll(async () => {
    db?.close();
    await ns?.drop();
  });

  it('maps primary-key and unique violations to "already exists"', async () => {
    const pk = await errorOf(() => db.exec("insert into t values ('a', 'y', 'n')"));
    const unique = await errorOf(() => db.exec("insert into t values ('b', 'x', 'n')"));
    expect((pk as { code: string }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect((unique as { code: string }).code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(isDuplicateKeyError(pk)).toBe(true);
    expect(isDuplicateKeyError(unique)).toBe(true);
  });

  it('does not map other constraint errors', async () => {
    const notNull = await errorOf(() => db.exec("insert into t values ('c', 'z', null)"));
    expect((notNull as { code: string }).code).toBe('SQLITE_CONSTRAINT_NOTNULL');
    expect(isDuplicateKeyError(notNull)).toBe(false);
    expect(sqliteDialect.isTransientError(notNull)).toBe(false);
  });

  it('classifies SQLITE_BUSY from a second connection as transient', async () => {
    const holder = new Database(ns.path);
    const waiter = new Database(ns.path, { timeout: 1 });
    try {
      holder.exec('begin immediate');
      const busy = await errorOf(() => waiter.exec("insert into t values ('d', 'w', 'n')"));
      expect((busy as { code: string }).code).toMatch(/^SQLITE_BUSY/);
      expect(sqliteDialect.isTransientError(busy)).toBe(true);
      expect(isDuplicateKeyError(busy)).toBe(false);
    } finally {
      holder.exec('rollback');
      holder.close();
      waiter.close();
    }
  });
});

describe('isDuplicateKeyError and transient errors: PostgreSQL (pg)', () => {
  let ns: PostgresNamespace;
  let client: pg.Client;
  beforeAll(async () => {
    ns = await createPostgresNamespace();
    client = new pg.Client(ns.config);
    await client.connect();
    await client.query('create table t (id text primary key, code text unique, note text not null)');
    await client.query("insert into t values ('a', 'x', 'n')");
  });
  afterAll(async () => {
    await client?.end();
    await ns?.drop();
  });

  it('maps 23505 on the primary key and on a unique index to "already exists"', async () => {
    const pk = await errorOf(() => client.query("insert into t values ('a', 'y', 'n')"));
    const unique = await errorOf(() => client.query("insert into t values ('b', 'x', 'n')"));
    expect((pk as { code: string }).code).toBe('23505');
    expect(isDuplicateKeyError(pk)).toBe(true);
    expect(isDuplicateKeyError(unique)).toBe(true);
  });

  it('does not map a not-null violation (23502), and a deadlock (40P01) is transient', async () => {
    const notNull = await errorOf(() => client.query("insert into t values ('c', 'z', null)"));
    expect((notNull as { code: string }).code).toBe('23502');
    expect(isDuplicateKeyError(notNull)).toBe(false);
    expect(postgresDialect.isTransientError(notNull)).toBe(false);
    const deadlock = await errorOf(() =>
      client.query("do $$ begin raise exception using errcode = 'deadlock_detected'; end $$"),
    );
    expect((deadlock as { code: string }).code).toBe('40P01');
    expect(postgresDialect.isTransientError(deadlock)).toBe(true);
  });
});

describe('isDuplicateKeyError and transient errors: MariaDB (mysql2)', () => {
  let ns: MysqlNamespace;
  let a: mysql.Connection;
  let b: mysql.Connection;
  beforeAll(async () => {
    ns = await createMysqlNamespace();
    a = await mysql.createConnection({ uri: ns.url });
    b = await mysql.createConnection({ uri: ns.url });
    await a.query('create table t (id varchar(10) primary key, code varchar(10) unique, note text not null)');
    await a.query("insert into t values ('a', 'x', 'n')");
  });
  afterAll(async () => {
    await a?.end();
    await b?.end();
    await ns?.drop();
  });

  it('maps 1062 ER_DUP_ENTRY on the primary key and on a unique index to "already exists"', async () => {
    const pk = await errorOf(() => a.query("insert into t values ('a', 'y', 'n')"));
    const unique = await errorOf(() => a.query("insert into t values ('b', 'x', 'n')"));
    expect(pk).toMatchObject({ errno: 1062, code: 'ER_DUP_ENTRY' });
    expect(isDuplicateKeyError(pk)).toBe(true);
    expect(isDuplicateKeyError(unique)).toBe(true);
  });

  it('does not map a not-null violation (1048)', async () => {
    const notNull = await errorOf(() => a.query("insert into t values ('c', 'z', null)"));
    expect(notNull).toMatchObject({ errno: 1048 });
    expect(isDuplicateKeyError(notNull)).toBe(false);
    expect(mysqlDialect.isTransientError(notNull)).toBe(false);
  });

  it('classifies a lock wait timeout (1205) as transient', async () => {
    await b.query('set session innodb_lock_wait_timeout = 1');
    await a.query('begin');
    try {
      await a.query("update t set note = 'held' where id = 'a'");
      const timeout = await errorOf(() => b.query("update t set note = 'waiting' where id = 'a'"));
      expect(timeout).toMatchObject({ errno: 1205 });
      expect(mysqlDialect.isTransientError(timeout)).toBe(true);
      expect(isDuplicateKeyError(timeout)).toBe(false);
    } finally {
      await a.query('rollback');
    }
  });
});

import { CompiledQuery, Kysely, MysqlDialect, type MysqlPool, PostgresDialect, type QueryResult } from 'kysely';
import mysql from 'mysql2';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type MysqlQueryPool,
  mysqlStatementRunner,
} from '../../../packages/payonce/src/stores/mysql/mysql-statement-runner.js';
import {
  type PgQueryPool,
  pgStatementRunner,
} from '../../../packages/payonce/src/stores/postgres/pg-statement-runner.js';
import { isDuplicateKeyError } from '../../../packages/payonce/src/stores/sql/driver-error.js';
import { createMysqlNamespace } from '../../contract/backends/mysql.js';
import { createPostgresNamespace } from '../../contract/backends/postgres.js';

/**
 * The stores opened by `connect()` run their fixed statements straight on the driver's pool (issue #17: the
 * Kysely executor's layers were part of the client's CPU per delivery). The store's code reads results as Kysely
 * shapes them, so each runner must give exactly what Kysely's own driver gives for the same statement, and pass the
 * driver's errors through unchanged.
 */
type Runner = (sql: string, parameters: readonly unknown[]) => Promise<QueryResult<unknown>>;

interface Case {
  readonly name: string;
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

interface Side {
  readonly runner: Runner;
  readonly db: Kysely<unknown>;
  readonly cases: readonly Case[];
  readonly duplicate: Case;
  close(): Promise<void>;
}

async function postgresSide(): Promise<Side> {
  const ns = await createPostgresNamespace();
  const pool = new pg.Pool({ ...ns.config, max: 2 });
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  await pool.query('create table runner_t (id text primary key, n integer not null, body bytea)');
  const cases: Case[] = [
    {
      name: 'insert',
      sql: 'insert into runner_t (id, n, body) values ($1, $2, $3)',
      parameters: ['a', 1, Buffer.from([0, 255])],
    },
    {
      name: 'insert on conflict, nothing inserted',
      sql: 'insert into runner_t (id, n) values ($1, $2) on conflict (id) do nothing',
      parameters: ['a', 9],
    },
    { name: 'update of no row', sql: 'update runner_t set n = n + 1 where id = $1', parameters: ['none'] },
    { name: 'update', sql: 'update runner_t set n = n + 1 where id = $1', parameters: ['a'] },
    { name: 'select', sql: 'select id, n, body from runner_t where id = $1', parameters: ['a'] },
    { name: 'select of no row', sql: 'select id from runner_t where id = $1', parameters: ['none'] },
    { name: 'delete', sql: 'delete from runner_t where id = $1', parameters: ['none'] },
  ];
  return {
    runner: pgStatementRunner(pool as unknown as PgQueryPool),
    db,
    cases,
    duplicate: { name: 'duplicate key', sql: 'insert into runner_t (id, n) values ($1, $2)', parameters: ['a', 2] },
    close: async () => {
      await db.destroy();
      await ns.drop();
    },
  };
}

async function mysqlSide(): Promise<Side> {
  const ns = await createMysqlNamespace();
  const pool = mysql.createPool({ uri: ns.url, connectionLimit: 2 });
  const db = new Kysely<unknown>({ dialect: new MysqlDialect({ pool: pool as unknown as MysqlPool }) });
  await db.executeQuery(
    CompiledQuery.raw('create table runner_t (id varchar(20) primary key, n int not null, body varbinary(16))'),
  );
  const cases: Case[] = [
    {
      name: 'insert',
      sql: 'insert into runner_t (id, n, body) values (?, ?, ?)',
      parameters: ['a', 1, Buffer.from([0, 255])],
    },
    {
      name: 'insert ignore, nothing inserted',
      sql: 'insert ignore into runner_t (id, n) values (?, ?)',
      parameters: ['a', 9],
    },
    { name: 'update of no row', sql: 'update runner_t set n = n + 1 where id = ?', parameters: ['none'] },
    { name: 'update', sql: 'update runner_t set n = n + 1 where id = ?', parameters: ['a'] },
    { name: 'update that changes nothing', sql: 'update runner_t set n = n where id = ?', parameters: ['a'] },
    { name: 'select', sql: 'select id, n, body from runner_t where id = ?', parameters: ['a'] },
    { name: 'select of no row', sql: 'select id from runner_t where id = ?', parameters: ['none'] },
    { name: 'delete', sql: 'delete from runner_t where id = ?', parameters: ['none'] },
  ];
  return {
    runner: mysqlStatementRunner(pool as unknown as MysqlQueryPool),
    db,
    cases,
    duplicate: { name: 'duplicate key', sql: 'insert into runner_t (id, n) values (?, ?)', parameters: ['a', 2] },
    close: async () => {
      await db.destroy();
      await ns.drop();
    },
  };
}

/** Runs `statement` on each path in turn: the runner, then Kysely's executor. */
async function bothWays(side: Side, statement: Case): Promise<{ direct: unknown; kysely: unknown }> {
  const direct = await side.runner(statement.sql, [...statement.parameters]);
  const kysely = await side.db.executeQuery(CompiledQuery.raw(statement.sql, [...statement.parameters]));
  return { direct, kysely };
}

describe.each([
  ['PostgreSQL (pg)', postgresSide],
  ['MariaDB (mysql2)', mysqlSide],
])('the direct statement runner on %s', (_name, open) => {
  let side: Side;
  beforeAll(async () => {
    side = await open();
  });
  afterAll(async () => {
    await side?.close();
  });

  it('gives the result Kysely gives for every kind of statement the store sends', async () => {
    for (const statement of side.cases) {
      if (statement.name === 'insert') {
        // An INSERT cannot run twice the same way: compare it with Kysely's on a second key.
        const direct = await side.runner(statement.sql, [...statement.parameters]);
        const second = ['b', ...statement.parameters.slice(1)];
        const kysely = await side.db.executeQuery(CompiledQuery.raw(statement.sql, second));
        expect(direct, statement.name).toEqual(kysely);
        expect(direct.numAffectedRows, statement.name).toBe(1n);
        continue;
      }
      const { direct, kysely } = await bothWays(side, statement);
      // The update runs once on each path, so its counts match while the row's value moves on.
      expect(direct, statement.name).toEqual(kysely);
    }
  });

  it('reports affected rows as bigints and rows as the driver decodes them', async () => {
    const select = side.cases.find((statement) => statement.name === 'select')!;
    const read = await side.runner(select.sql, [...select.parameters]);
    expect(read.numAffectedRows).toBeUndefined();
    expect(read.rows).toEqual([expect.objectContaining({ id: 'a', body: Buffer.from([0, 255]) })]);
    const missing = side.cases.find((statement) => statement.name === 'update of no row')!;
    expect((await side.runner(missing.sql, [...missing.parameters])).numAffectedRows).toBe(0n);
  });

  it("passes the driver's duplicate-key error through unchanged (the claim's 'exists' signal)", async () => {
    const { sql, parameters } = side.duplicate;
    const direct = await side.runner(sql, [...parameters]).catch((error: unknown) => error);
    const kysely = await side.db.executeQuery(CompiledQuery.raw(sql, [...parameters])).catch((error: unknown) => error);
    expect(isDuplicateKeyError(direct)).toBe(true);
    expect(isDuplicateKeyError(kysely)).toBe(true);
    expect((direct as Error).constructor).toBe((kysely as Error).constructor);
    expect((direct as Error).message).toBe((kysely as Error).message);
  });

  it('rejects with the driver error for SQL the server refuses, and stays usable', async () => {
    await expect(side.runner('select * from no_such_table_here', [])).rejects.toThrow(/no_such_table_here/);
    const select = side.cases.find((statement) => statement.name === 'select')!;
    expect((await side.runner(select.sql, [...select.parameters])).rows).toHaveLength(1);
  });
});

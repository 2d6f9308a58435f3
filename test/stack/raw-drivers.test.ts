import Database from 'better-sqlite3';
import mysqlCallback from 'mysql2';
import mysql from 'mysql2/promise';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import {
  betterSqlite3Executor,
  betterSqlite3Transactions,
  runInBetterSqlite3Transaction,
} from '../../packages/payonce/src/tx/better-sqlite3.js';
import {
  mysql2Executor,
  mysql2Transactions,
  runInMysql2Transaction,
  withMysql2Transaction,
} from '../../packages/payonce/src/tx/mysql2.js';
import {
  postgresJsExecutor,
  postgresJsTransactions,
  runInPostgresJsTransaction,
} from '../../packages/payonce/src/tx/postgres-js.js';
import { openStackFixture, type StackStore } from './stack-target.js';

// What the conformance suite does not show for the raw-driver adapters: the objects each refuses (InvalidOption
// naming what is accepted), how parameters and results are mapped on the real driver, and the openers.

const key = new RequestKey('stack', 'wrong-1');
const noop = async () => {};

describe('payonce/tx/postgres-js on PostgreSQL', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let sql: postgres.Sql;
  let guard: IdempotencyGuard<StackStore>;

  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    sql = postgres(fixture.target.url, { max: 3, connection: { search_path: fixture.target.schema ?? 'public' } });
    guard = new IdempotencyGuard(fixture.store);
  });

  afterAll(async () => {
    await sql?.end();
    await fixture?.drop();
  });

  it('refuses the root sql, a reserved connection and a plain object, naming the TransactionSql', async () => {
    await expect(runInPostgresJsTransaction(guard, sql as never, key, noop)).rejects.toThrow(InvalidOption);
    await expect(runInPostgresJsTransaction(guard, sql as never, key, noop)).rejects.toThrow(
      /sql\.begin.*TransactionSql/,
    );
    const reserved = await sql.reserve();
    try {
      expect(() => postgresJsExecutor(reserved as never)).toThrow(/not the root sql nor a reserved connection/);
    } finally {
      reserved.release();
    }
    expect(() => postgresJsExecutor({ unsafe: noop } as never)).toThrow(InvalidOption);
    expect(() => postgresJsExecutor(null as never)).toThrow(InvalidOption);
    expect(() => postgresJsTransactions({} as never)).toThrow(/root sql of postgres\.js/);
  });

  it("binds JSON text verbatim into text (payonce's columns), an object into jsonb, bytes, bigint and Date; counts writes only", async () => {
    const results = await sql.begin(async (tx) => {
      const executor = postgresJsExecutor(tx);
      await executor.execute(
        'create temporary table mapped (doc text, obj jsonb, body bytea, n int8, at timestamptz)',
        [],
      );
      const insert = await executor.execute('insert into mapped values ($1, $2, $3, $4, $5), ($1, $2, $3, $4, $5)', [
        '{"a":1}',
        { a: 2 },
        new Uint8Array([0, 255]),
        9_007_199_254_740_993n,
        new Date('2026-01-02T03:04:05.000Z'),
      ]);
      const select = await executor.execute(
        "select doc, obj ->> 'a' as a, body, n::text as n, at from mapped limit 1",
        [],
      );
      const update = await executor.execute('update mapped set n = n + 1 where n > $1', [0]);
      return { insert, select, update };
    });
    expect(results.insert).toEqual({ rows: [], numAffectedRows: 2n });
    expect(results.update.numAffectedRows).toBe(2n);
    expect(results.select.numAffectedRows).toBeUndefined();
    expect(results.select.rows).toEqual([
      {
        doc: '{"a":1}',
        a: '2',
        body: Buffer.from([0, 255]),
        n: '9007199254740993',
        at: new Date('2026-01-02T03:04:05.000Z'),
      },
    ]);
  });

  it("prepares each of payonce's statements once on a connection, and none when postgres() says prepare: false", async () => {
    const text = 'select $1::text as v, $2::int8 as n';
    const preparedOn = (client: postgres.Sql) =>
      client.begin(async (tx) => {
        const executor = postgresJsExecutor(tx);
        for (const v of ['a', 'b', 'c']) {
          expect((await executor.execute(text, [v, 7])).rows).toEqual([{ v, n: '7' }]);
        }
        const [row] = await tx`select count(*)::int as n from pg_prepared_statements where statement = ${text}`;
        return row?.n as number;
      });
    expect(await preparedOn(sql)).toBe(1);
    const unprepared = postgres(fixture.target.url, { max: 1, prepare: false });
    try {
      expect(await preparedOn(unprepared)).toBe(0);
    } finally {
      await unprepared.end();
    }
  });

  it('the opener commits the work, rolls back a throw, and hands the work the tx', async () => {
    const transactions = postgresJsTransactions(sql);
    expect(transactions).toMatchObject({ dialect: 'postgres', stack: 'postgres.js' });
    await transactions.transaction(async (tx, executor) => {
      await tx`insert into stack_effects (event_id) values ('opener-1')`;
      await executor.execute('insert into stack_effects (event_id) values ($1)', ['opener-1']);
    });
    await expect(
      transactions.transaction(async (tx) => {
        await tx`insert into stack_effects (event_id) values ('opener-2')`;
        throw new Error('declined');
      }),
    ).rejects.toThrow('declined');
    const rows = await sql`select event_id from stack_effects where event_id like 'opener-%' order by event_id`;
    expect(rows.map((row) => row.event_id)).toEqual(['opener-1', 'opener-1']);
  });
});

describe('payonce/tx/mysql2 on MariaDB', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let pool: mysql.Pool;
  let guard: IdempotencyGuard<StackStore>;

  beforeAll(async () => {
    fixture = await openStackFixture('mysql');
    pool = mysql.createPool({ uri: fixture.target.url, connectionLimit: 3 });
    guard = new IdempotencyGuard(fixture.store);
  });

  afterAll(async () => {
    await pool?.end();
    await fixture?.drop();
  });

  it('refuses a Pool, a callback-API connection and a plain object, naming what is accepted', async () => {
    await expect(runInMysql2Transaction(guard, pool, key, noop)).rejects.toThrow(/PoolConnection.*not a Pool/);
    const callbackPool = mysqlCallback.createPool({ uri: fixture.target.url, connectionLimit: 1 });
    try {
      const callbackConnection = await new Promise<mysqlCallback.PoolConnection>((resolve, reject) =>
        callbackPool.getConnection((error, connection) => (error ? reject(error) : resolve(connection))),
      );
      try {
        expect(() => mysql2Executor(callbackConnection as never)).toThrow(
          /callback API \(pass connection\.promise\(\)/,
        );
      } finally {
        callbackConnection.release();
      }
      expect(() => mysql2Transactions(callbackPool as never)).toThrow(/pass pool\.promise\(\)/);
    } finally {
      await new Promise((resolve) => callbackPool.end(resolve));
    }
    expect(() => mysql2Executor({} as never)).toThrow(InvalidOption);
    expect(() => mysql2Transactions({} as never)).toThrow(/mysql2\/promise Pool/);
  });

  it('gives payonce rows as objects on a rowsAsArray connection, and affectedRows / insertId of a write', async () => {
    const connection = await mysql.createConnection({ uri: fixture.target.url, rowsAsArray: true });
    try {
      await connection.query('create temporary table counters (id int auto_increment primary key, n int)');
      await connection.beginTransaction();
      const executor = mysql2Executor(connection);
      const insert = await executor.execute('insert into counters (n) values (?), (?)', [1, 2]);
      const select = await executor.execute('select id, n from counters order by id', []);
      const update = await executor.execute('update counters set n = n + 1 where n > ?', [0]);
      await connection.commit();
      expect(insert).toEqual({ rows: [], numAffectedRows: 2n, insertId: 1n, inTransaction: true });
      expect(select).toEqual({
        rows: [
          { id: 1, n: 1 },
          { id: 2, n: 2 },
        ],
      });
      expect(update).toEqual({ rows: [], numAffectedRows: 2n, inTransaction: true });
    } finally {
      await connection.end();
    }
  });

  it('the opener commits the work, rolls back a throw, and releases the connection', async () => {
    const transactions = mysql2Transactions(pool);
    expect(transactions).toMatchObject({ dialect: 'mysql', stack: 'mysql2' });
    const outbox = new Outbox(fixture.store);
    await transactions.transaction(async (connection) => {
      await connection.query('insert into stack_effects (event_id) values (?)', ['opener-1']);
      await withMysql2Transaction(fixture.store, connection, (trx) =>
        outbox.enqueueOnce(trx, 'order.fulfil', 'opener-1', {}),
      );
    });
    await expect(
      transactions.transaction(async (connection) => {
        await connection.query('insert into stack_effects (event_id) values (?)', ['opener-2']);
        throw new Error('declined');
      }),
    ).rejects.toThrow('declined');
    const [rows] = await pool.query<mysql.RowDataPacket[]>(
      "select event_id from stack_effects where event_id like 'opener-%'",
    );
    expect(rows.map((row) => row.event_id)).toEqual(['opener-1']);
    expect(await outbox.find('order.fulfil', 'opener-1')).not.toBeNull();
    // Three connections in the pool, five transactions: each connection went back.
    for (let i = 0; i < 5; i += 1) await transactions.transaction(async () => {});
  });
});

describe('payonce/tx/better-sqlite3 on SQLite', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let db: Database.Database;
  let guard: IdempotencyGuard<StackStore>;

  beforeAll(async () => {
    fixture = await openStackFixture('sqlite');
    db = new Database(fixture.target.url, { timeout: 5_000 });
    guard = new IdempotencyGuard(fixture.store);
  });

  afterAll(async () => {
    db?.close();
    await fixture?.drop();
  });

  it('refuses a db without an open transaction, a statement after COMMIT, and a plain object', async () => {
    await expect(runInBetterSqlite3Transaction(guard, db, key, noop)).rejects.toThrow(
      /no open transaction.*BEGIN IMMEDIATE/,
    );
    db.exec('BEGIN IMMEDIATE');
    const executor = betterSqlite3Executor(db);
    db.exec('COMMIT');
    await expect(executor.execute('select 1', [])).rejects.toThrow(/no open transaction/);
    expect(() => betterSqlite3Executor({ prepare: noop } as never)).toThrow(/better-sqlite3 Database/);
    expect(() => betterSqlite3Transactions({} as never)).toThrow(InvalidOption);
  });

  it('reads rows of a reader, changes and lastInsertRowid of a write, and integers as numbers', async () => {
    db.defaultSafeIntegers(true);
    db.exec('create table if not exists counters (id integer primary key, n integer, body blob)');
    db.exec('BEGIN IMMEDIATE');
    try {
      const executor = betterSqlite3Executor(db);
      const insert = await executor.execute('insert into counters (n, body) values (?, ?), (?, ?)', [
        1,
        new Uint8Array([7]),
        2n,
        null,
      ]);
      const select = await executor.execute('select id, n, body from counters order by id', []);
      const returning = await executor.execute('update counters set n = n + 1 returning n', []);
      expect(insert).toEqual({ rows: [], numAffectedRows: 2n, insertId: 2n });
      expect(select.rows).toEqual([
        { id: 1, n: 1, body: Buffer.from([7]) },
        { id: 2, n: 2, body: null },
      ]);
      expect(select.numAffectedRows).toBeUndefined();
      expect(returning.rows).toEqual([{ n: 2 }, { n: 3 }]);
    } finally {
      db.exec('COMMIT');
      db.defaultSafeIntegers(false);
    }
  });

  it('the opener runs one transaction of the connection at a time, and rolls back a throw', async () => {
    const transactions = betterSqlite3Transactions(db);
    const other = betterSqlite3Transactions(db); // a second opener of the same db shares the queue
    const order: string[] = [];
    let releaseFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const first = transactions.transaction(async (tx) => {
      order.push('first:begin');
      tx.prepare('insert into stack_effects (event_id) values (?)').run('queue-1');
      await firstHeld;
      order.push('first:end');
    });
    const second = other.transaction(async (tx) => {
      order.push('second:begin');
      tx.prepare('insert into stack_effects (event_id) values (?)').run('queue-2');
      throw new Error('declined');
    });
    const third = transactions.transaction(async () => {
      order.push('third');
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first:begin']);
    releaseFirst();
    await first;
    await expect(second).rejects.toThrow('declined');
    await third;
    expect(order).toEqual(['first:begin', 'first:end', 'second:begin', 'third']);
    expect(db.inTransaction).toBe(false);
    const rows = db.prepare("select event_id from stack_effects where event_id like 'queue-%'").pluck().all();
    expect(rows).toEqual(['queue-1']);
  });
});

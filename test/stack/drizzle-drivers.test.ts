import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js';
import mysql from 'mysql2/promise';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import {
  drizzleExecutor,
  drizzleTransactions,
  runInDrizzleTransaction,
} from '../../packages/payonce/src/tx/drizzle.js';
import { openStackFixture, type StackStore } from './stack-target.js';

// payonce/tx/drizzle on its other drivers beyond the conformance suite: MySQL placeholders and errors, the objects
// refused on postgres.js and mysql2, and better-sqlite3 (whose db.transaction is synchronous).

describe('payonce/tx/drizzle on mysql2', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let pool: mysql.Pool;

  beforeAll(async () => {
    fixture = await openStackFixture('mysql');
    pool = mysql.createPool({ uri: fixture.target.url, connectionLimit: 2 });
  });

  afterAll(async () => {
    await pool?.end();
    await fixture?.drop();
  });

  it('binds each ? as one parameter in order and leaves a ? in a literal or identifier alone', async () => {
    const db = drizzleMysql(pool);
    const rows = await db.transaction(async (tx) => {
      const result = await drizzleExecutor(tx).execute(
        "select '?' as literal, 'it''s ?' as doubled, `x?` as quoted, ? as a, ? as b from (select 1 as `x?`) t",
        ['one', 2],
      );
      return result.rows;
    });
    expect(rows).toEqual([{ literal: '?', doubled: "it's ?", quoted: 1, a: 'one', b: 2 }]);
  });

  it("counts a write's affected rows and throws the driver's own duplicate-key error (errno 1062)", async () => {
    const db = drizzleMysql(pool);
    await db.transaction(async (tx) => {
      const executor = drizzleExecutor(tx);
      const insert = "insert into stack_customers (id, name) values (?, 'Ann')";
      expect((await executor.execute(insert, ['cust_dup'])).numAffectedRows).toBe(1n);
      await expect(executor.execute(insert, ['cust_dup'])).rejects.toMatchObject({ errno: 1062 });
    });
  });

  it('refuses the Drizzle database instead of its tx, and drizzleTransactions given a tx', async () => {
    const db = drizzleMysql(pool);
    const guard = new IdempotencyGuard(fixture.store);
    await expect(runInDrizzleTransaction(guard, db, new RequestKey('stack', 'w'), async () => {})).rejects.toThrow(
      /a Drizzle database, not a transaction/,
    );
    await db.transaction(async (tx) => {
      expect(() => drizzleTransactions(tx as never)).toThrow(InvalidOption);
    });
    expect(drizzleTransactions(db).dialect).toBe('mysql');
  });
});

describe('payonce/tx/drizzle on postgres.js', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let client: postgres.Sql;

  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    client = postgres(fixture.target.url, { max: 2, connection: { search_path: fixture.target.schema ?? 'public' } });
  });

  afterAll(async () => {
    await client?.end();
    await fixture?.drop();
  });

  it("counts a write's rows from postgres.js's count, and refuses the database instead of its tx", async () => {
    const db = drizzlePostgresJs(client);
    await db.transaction(async (tx) => {
      const executor = drizzleExecutor(tx);
      const result = await executor.execute(
        "insert into stack_customers (id, name) values ($1, 'Ann'), ($2, 'Bob') on conflict do nothing",
        ['cust_a', 'cust_b'],
      );
      expect(result.numAffectedRows).toBe(2n);
      const again = await executor.execute(
        "insert into stack_customers (id, name) values ($1, 'Ann') on conflict do nothing returning id",
        ['cust_a'],
      );
      expect(again).toEqual({ rows: [], numAffectedRows: 0n });
    });
    const guard = new IdempotencyGuard(fixture.store);
    await expect(runInDrizzleTransaction(guard, db, new RequestKey('stack', 'w'), async () => {})).rejects.toThrow(
      /a Drizzle database, not a transaction/,
    );
    expect(drizzleTransactions(db).dialect).toBe('postgres');
  });

  it("prepares each of payonce's statements once on a connection, and none when postgres() says prepare: false", async () => {
    const text = 'select $1::text as v';
    const preparedOn = (sqlClient: postgres.Sql) =>
      drizzlePostgresJs(sqlClient).transaction(async (tx) => {
        const executor = drizzleExecutor(tx);
        for (const v of ['a', 'b', 'c']) expect((await executor.execute(text, [v])).rows).toEqual([{ v }]);
        const { rows } = await executor.execute(
          'select count(*)::int as n from pg_prepared_statements where statement = $1',
          [text],
        );
        return (rows[0] as { n: number }).n;
      });
    expect(await preparedOn(client)).toBe(1);
    const unprepared = postgres(fixture.target.url, { max: 1, prepare: false });
    try {
      expect(await preparedOn(unprepared)).toBe(0);
    } finally {
      await unprepared.end();
    }
  });
});

describe('payonce/tx/drizzle on better-sqlite3', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let store: StackStore;
  let client: Database.Database;

  beforeAll(async () => {
    fixture = await openStackFixture('sqlite');
    store = fixture.store;
    client = new Database(fixture.target.url);
  });

  afterAll(async () => {
    client?.close();
    await fixture?.drop();
  });

  it("refuses the synchronous db.transaction's tx, and the db with no open transaction, naming what works", async () => {
    const db = drizzleSqlite(client);
    const guard = new IdempotencyGuard(store);
    const key = new RequestKey('stack', 'sqlite-wrong');
    let refused: unknown;
    db.transaction((tx) => {
      try {
        drizzleExecutor(tx as never);
      } catch (error) {
        refused = error;
      }
    });
    expect(refused).toBeInstanceOf(InvalidOption);
    expect(String((refused as Error).message)).toMatch(/runs synchronously.*begin immediate/);
    await expect(runInDrizzleTransaction(guard, db, key, async () => {})).rejects.toThrow(/no open transaction/);
  });

  it('joins the db inside begin immediate: commit keeps all, rollback leaves nothing', async () => {
    const db = drizzleSqlite(client);
    const guard = new IdempotencyGuard(store);
    for (const [eventId, commit] of [
      ['sqlite-rollback', false],
      ['sqlite-commit', true],
    ] as const) {
      db.run(sql`begin immediate`);
      let same = false;
      await runInDrizzleTransaction(guard, db, new RequestKey('stack', eventId), async (tx) => {
        same = tx === db;
        tx.run(sql`insert into stack_effects (event_id) values (${eventId})`);
      });
      db.run(commit ? sql`commit` : sql`rollback`);
      expect(same).toBe(true);
      expect(db.all(sql`select event_id from stack_effects where event_id = ${eventId}`)).toHaveLength(commit ? 1 : 0);
      expect((await store.find(new RequestKey('stack', eventId)))?.status ?? null).toBe(commit ? 'completed' : null);
    }
  });

  it('drizzleTransactions(db) runs one transaction at a time and rolls back the one that throws', async () => {
    const db = drizzleSqlite(client);
    const transactions = drizzleTransactions(db);
    expect(transactions.dialect).toBe('sqlite');
    const steps: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = transactions.transaction(async (tx) => {
      steps.push('first:begin');
      tx.run(sql`insert into stack_effects (event_id) values ('serial-1')`);
      await held;
      steps.push('first:end');
      throw new Error('first rolls back');
    });
    const second = transactions.transaction(async (_tx, executor) => {
      steps.push('second:begin');
      await executor.execute('insert into stack_effects (event_id) values (?)', ['serial-2']);
    });
    await Promise.resolve();
    release();
    await expect(first).rejects.toThrow('first rolls back');
    await second;
    expect(steps).toEqual(['first:begin', 'first:end', 'second:begin']);
    expect(db.all(sql`select event_id from stack_effects where event_id like 'serial-%'`)).toEqual([
      { event_id: 'serial-2' },
    ]);
    expect(client.inTransaction).toBe(false);
  });
});

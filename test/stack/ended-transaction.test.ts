import Database from 'better-sqlite3';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import knexFactory from 'knex';
import { Kysely, PostgresDialect, sql } from 'kysely';
import mysql from 'mysql2/promise';
import pg from 'pg';
import postgres from 'postgres';
import { DataSource, type EntityManager } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { checkStackTransactions } from '../../packages/payonce/src/stores/sql/stack-one-commit.js';
import { runInBetterSqlite3Transaction } from '../../packages/payonce/src/tx/better-sqlite3.js';
import { runInDrizzleTransaction } from '../../packages/payonce/src/tx/drizzle.js';
import { runInKnexTransaction } from '../../packages/payonce/src/tx/knex.js';
import { runInKyselyTransaction } from '../../packages/payonce/src/tx/kysely.js';
import { runInMysql2Transaction } from '../../packages/payonce/src/tx/mysql2.js';
import { pgTransactions, runInPgTransaction, withPgTransaction } from '../../packages/payonce/src/tx/pg.js';
import { runInPostgresJsTransaction } from '../../packages/payonce/src/tx/postgres-js.js';
import { runInTypeormTransaction } from '../../packages/payonce/src/tx/typeorm.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { openStackFixture, type StackStore } from './stack-target.js';

// A transaction object kept past its transaction (a closure, an un-awaited call) must never carry payonce's
// statements: on most stacks they would commit on their own (the receipt without the business write), or run in
// another request's transaction on the same pooled connection. And a transaction on another database or schema with
// its own copy of payonce's tables must never be used: the receipts would split between two copies.

const ENDED =
  /not inside an open transaction|no longer inside its transaction|has no open transaction|transaction has ended/;
let serial = 0;
const nextKey = () => {
  serial += 1;
  return new RequestKey('stack', `ended_${process.pid}_${serial}`);
};
const handler = async () => ({ status: 200, body: '{"ok":true}' });

/** Receipts of `key` in the store's tables: none may be written by a refused call. */
async function receiptsOf(store: StackStore, key: RequestKey): Promise<number> {
  const { rows } = await sql<{
    n: string | number;
  }>`select count(*) as n from payonce_receipts where external_id = ${key.externalId}`
    .execute(store.db)
    .catch(async () => ({ rows: [{ n: -1 }] }));
  return Number(rows[0]?.n);
}

describe('PostgreSQL: a transaction object whose transaction has ended is refused', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let guard: IdempotencyGuard<StackStore>;
  let pool: pg.Pool;
  const search = () => fixture.target.schema ?? 'public';

  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    guard = new IdempotencyGuard(fixture.store);
    pool = new pg.Pool({ connectionString: fixture.target.url, options: `-c search_path=${search()}`, max: 4 });
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await fixture?.drop();
  });

  const expectRefused = async (call: (key: RequestKey) => Promise<unknown>) => {
    const key = nextKey();
    await expect(call(key)).rejects.toThrow(InvalidOption);
    await expect(call(key)).rejects.toThrow(ENDED);
    expect(await receiptsOf(fixture.store, key)).toBe(0);
  };

  it('node-postgres: a client after COMMIT (withPgTransaction too)', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('COMMIT');
      await expectRefused((key) => runInPgTransaction(guard, client, key, handler));
      const outbox = new Outbox(fixture.store);
      await expect(
        withPgTransaction(fixture.store, client, (trx) => outbox.enqueueOnce(trx, 'ended.topic', 'k1', {})),
      ).rejects.toThrow(ENDED);
    } finally {
      client.release();
    }
  });

  it('postgres.js: the tx of sql.begin after the callback resolved', async () => {
    const client = postgres(fixture.target.url, { max: 1, connection: { search_path: search() }, onnotice: () => {} });
    try {
      let kept: postgres.TransactionSql | undefined;
      await client.begin(async (tx) => {
        kept = tx;
      });
      await expectRefused((key) => runInPostgresJsTransaction(guard, kept as postgres.TransactionSql, key, handler));
    } finally {
      await client.end();
    }
  });

  it('Drizzle on node-postgres: the tx of db.transaction after it committed', async () => {
    const db = drizzlePg(pool);
    let kept: Parameters<Parameters<typeof db.transaction>[0]>[0] | undefined;
    await db.transaction(async (tx) => {
      kept = tx;
    });
    await expectRefused((key) => runInDrizzleTransaction(guard, kept as NonNullable<typeof kept>, key, handler));
  });

  it('Knex and Kysely: their transaction objects after commit', async () => {
    const knex = knexFactory({ client: 'pg', connection: fixture.target.url, searchPath: [search()] });
    const kysely = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    try {
      let knexTrx: knexFactory.Knex.Transaction | undefined;
      await knex.transaction(async (trx) => {
        knexTrx = trx;
      });
      await expectRefused((key) => runInKnexTransaction(guard, knexTrx as knexFactory.Knex.Transaction, key, handler));
      let kyselyTrx: Parameters<Parameters<ReturnType<typeof kysely.transaction>['execute']>[0]>[0] | undefined;
      await kysely.transaction().execute(async (trx) => {
        kyselyTrx = trx;
      });
      await expectRefused((key) =>
        runInKyselyTransaction(guard, kyselyTrx as NonNullable<typeof kyselyTrx>, key, handler),
      );
    } finally {
      await knex.destroy();
    }
  });

  it('TypeORM: the manager of dataSource.transaction after it committed', async () => {
    const source = new DataSource({ type: 'postgres', url: fixture.target.url, schema: search() });
    await source.initialize();
    try {
      let kept: EntityManager | undefined;
      await source.transaction(async (manager) => {
        kept = manager;
      });
      await expectRefused((key) => runInTypeormTransaction(guard, kept as NonNullable<typeof kept>, key, handler));
    } finally {
      await source.destroy();
    }
  });

  it('a call not awaited inside the transaction stops before the handler runs; the redelivery applies once', async () => {
    await sql`create table if not exists ended_effects (key text not null)`.execute(fixture.store.db);
    const key = nextKey();
    const effects = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from ended_effects where key = ${key.externalId}`.execute(
            fixture.store.db,
          )
        ).rows[0]?.n,
      );
    const writeThenThrow = async (tx: pg.PoolClient) => {
      await tx.query('insert into ended_effects (key) values ($1)', [key.externalId]);
      throw new Error('the business step failed after its write');
    };
    const shortLease = new IdempotencyGuard(fixture.store, { leaseMs: 300 });
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const notAwaited = runInPgTransaction(shortLease, client, key, writeThenThrow);
      await client.query('COMMIT');
      await expect(notAwaited).rejects.toThrow(ENDED);
    } finally {
      client.release();
    }
    expect(await effects()).toBe(0);
    // The claim may have committed on its own: a lease, taken over once it expires; the handler then runs once.
    const apply = async (tx: pg.PoolClient) => {
      await tx.query('insert into ended_effects (key) values ($1)', [key.externalId]);
      return { status: 200, body: 'applied' };
    };
    let applied = false;
    for (let attempt = 0; attempt < 50 && !applied; attempt++) {
      const again = await pool.connect();
      try {
        await again.query('BEGIN');
        await runInPgTransaction(shortLease, again, key, apply);
        await again.query('COMMIT');
        applied = true;
      } catch (error) {
        await again.query('ROLLBACK');
        if ((error as { code?: string }).code !== 'REQUEST_IN_PROGRESS') throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        again.release();
      }
    }
    expect(applied).toBe(true);
    expect(await effects()).toBe(1);
  });

  it('a postgres.js transaction handed to payonce/tx/pg is refused naming payonce/tx/postgres-js', async () => {
    const client = postgres(fixture.target.url, { max: 1, onnotice: () => {} });
    try {
      await client.begin(async (tx) => {
        await expect(runInPgTransaction(guard, tx as never, nextKey(), handler)).rejects.toThrow(
          /payonce\/tx\/postgres-js/,
        );
      });
    } finally {
      await client.end();
    }
  });
});

describe('PostgreSQL: a transaction on another copy of payonce tables is refused', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let other: Awaited<ReturnType<typeof createPostgresNamespace>>;
  let otherPool: pg.Pool;
  let guard: IdempotencyGuard<StackStore>;

  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    guard = new IdempotencyGuard(fixture.store);
    other = await createPostgresNamespace();
    otherPool = new pg.Pool({
      connectionString: fixture.target.url,
      options: `-c search_path=${other.schema}`,
      max: 2,
    });
    // The other schema holds its own, complete copy of payonce's tables.
    const copy = await openStackFixtureOn(other.schema, fixture.target.url);
    await copy.close();
  }, 60_000);
  afterAll(async () => {
    await otherPool?.end();
    await other?.drop();
    await fixture?.drop();
  });

  it('a SET LOCAL search_path to the other copy, on a connection that passed the check before, is refused', async () => {
    const onePool = new pg.Pool({
      connectionString: fixture.target.url,
      options: `-c search_path=${fixture.target.schema}`,
      max: 1,
    });
    try {
      const client = await onePool.connect();
      try {
        await client.query('BEGIN');
        await runInPgTransaction(guard, client, nextKey(), handler);
        await client.query('COMMIT');
        const key = nextKey();
        await client.query('BEGIN');
        await client.query(`SET LOCAL search_path TO ${other.schema}`);
        await expect(runInPgTransaction(guard, client, key, handler)).rejects.toThrow(/receipts would be split/);
        await client.query('ROLLBACK');
        expect(await receiptsOf(fixture.store, key)).toBe(0);
      } finally {
        client.release();
      }
    } finally {
      await onePool.end();
    }
  });

  it('a client in BEGIN on another search_path gets InvalidOption naming both places; no receipt anywhere', async () => {
    const client = await otherPool.connect();
    const key = nextKey();
    try {
      await client.query('BEGIN');
      await expect(runInPgTransaction(guard, client, key, handler)).rejects.toThrow(/receipts would be split/);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await receiptsOf(fixture.store, key)).toBe(0);
    const { rows } = await otherPool.query('select count(*)::int as n from payonce_receipts');
    expect(rows[0].n).toBe(0);
  });

  it('an opener on another search_path fails its transactions with InvalidOption; one on the store’s passes', async () => {
    const wrong = checkStackTransactions(pgTransactions(otherPool), fixture.store, 'transaction');
    await expect(wrong.transaction(async () => 'ran')).rejects.toThrow(/receipts would be split/);
    const rightPool = new pg.Pool({
      connectionString: fixture.target.url,
      options: `-c search_path=${fixture.target.schema}`,
      max: 2,
    });
    try {
      const right = checkStackTransactions(pgTransactions(rightPool), fixture.store, 'transaction');
      await expect(right.transaction(async () => 'ran')).resolves.toBe('ran');
    } finally {
      await rightPool.end();
    }
  });
});

/** payonce's tables migrated in `schema` (a store on that search_path), for the "another copy" case. */
async function openStackFixtureOn(schema: string, url: string): Promise<{ close(): Promise<void> }> {
  const { PostgresStore } = await import('../../packages/payonce/src/stores/postgres/postgres-store.js');
  const store = await PostgresStore.connect({ connectionString: url, options: `-c search_path=${schema}` });
  await store.migrate();
  return { close: () => store.close() };
}

describe('MariaDB: a mysql2 connection after COMMIT is refused', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let guard: IdempotencyGuard<StackStore>;

  beforeAll(async () => {
    fixture = await openStackFixture('mysql');
    guard = new IdempotencyGuard(fixture.store);
  }, 60_000);
  afterAll(async () => {
    await fixture?.drop();
  });

  it('mysql2 and Drizzle on mysql2', async () => {
    const connection = await mysql.createConnection(fixture.target.url);
    try {
      await connection.beginTransaction();
      await connection.commit();
      const key = nextKey();
      await expect(runInMysql2Transaction(guard, connection, key, handler)).rejects.toThrow(ENDED);
      expect(await receiptsOf(fixture.store, key)).toBe(0);
      const db = drizzleMysql(connection);
      let kept: Parameters<Parameters<typeof db.transaction>[0]>[0] | undefined;
      await db.transaction(async (tx) => {
        kept = tx;
      });
      const second = nextKey();
      await expect(runInDrizzleTransaction(guard, kept as NonNullable<typeof kept>, second, handler)).rejects.toThrow(
        ENDED,
      );
      expect(await receiptsOf(fixture.store, second)).toBe(0);
    } finally {
      await connection.end();
    }
  });
});

describe('SQLite: a better-sqlite3 database after COMMIT, and another file', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let otherFixture: Awaited<ReturnType<typeof openStackFixture>>;
  let guard: IdempotencyGuard<StackStore>;

  beforeAll(async () => {
    fixture = await openStackFixture('sqlite');
    otherFixture = await openStackFixture('sqlite');
    guard = new IdempotencyGuard(fixture.store);
  }, 60_000);
  afterAll(async () => {
    await otherFixture?.drop();
    await fixture?.drop();
  });

  it('refuses the ended transaction, and a transaction on another file with its own payonce tables', async () => {
    const db = new Database(fixture.target.url);
    const elsewhere = new Database(otherFixture.target.url);
    try {
      db.exec('BEGIN IMMEDIATE');
      db.exec('COMMIT');
      await expect(runInBetterSqlite3Transaction(guard, db, nextKey(), handler)).rejects.toThrow(InvalidOption);
      elsewhere.exec('BEGIN IMMEDIATE');
      await expect(runInBetterSqlite3Transaction(guard, elsewhere, nextKey(), handler)).rejects.toThrow(
        /receipts would be split/,
      );
      elsewhere.exec('ROLLBACK');
      db.exec('BEGIN IMMEDIATE');
      const outcome = await runInBetterSqlite3Transaction(guard, db, nextKey(), handler);
      db.exec('COMMIT');
      expect(outcome.isReplay).toBe(false);
    } finally {
      db.close();
      elsewhere.close();
    }
  });
});

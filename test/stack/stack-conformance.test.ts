import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { PostgresStore } from '../../packages/payonce/src/stores/postgres/postgres-store.js';
import {
  drizzleExecutor,
  runInDrizzleTransaction,
  withDrizzleTransaction,
} from '../../packages/payonce/src/tx/drizzle.js';
import { runInPgTransaction } from '../../packages/payonce/src/tx/pg.js';
import { createPostgresNamespace, POSTGRES_TEST_URL, type PostgresNamespace } from '../contract/backends/postgres.js';

// Wrong objects for the stack adapters (the conformance cases themselves: test/stack/conformance-<database>.test.ts).

describe('a wrong object for the stack adapters is refused with InvalidOption', () => {
  const key = new RequestKey('stack', 'wrong-1');
  let ns: PostgresNamespace;
  let store: PostgresStore;
  let pool: pg.Pool;

  beforeAll(async () => {
    ns = await createPostgresNamespace();
    store = await PostgresStore.connect(ns.config);
    await store.migrate();
    pool = new pg.Pool({ connectionString: POSTGRES_TEST_URL, options: `-c search_path=${ns.schema}` });
  });

  afterAll(async () => {
    await pool?.end();
    await store?.close();
    await ns?.drop();
  });

  it('a pg Pool instead of the client the transaction runs on', async () => {
    const guard = new IdempotencyGuard(store);
    await expect(runInPgTransaction(guard, pool, key, async () => {})).rejects.toThrow(InvalidOption);
    await expect(runInPgTransaction(guard, pool, key, async () => {})).rejects.toThrow(/PoolClient/);
  });

  it('a Drizzle database instead of its transaction, and a plain object', async () => {
    const guard = new IdempotencyGuard(store);
    const db = drizzle(pool);
    await expect(runInDrizzleTransaction(guard, db, key, async () => {})).rejects.toThrow(
      /a Drizzle database, not a transaction/,
    );
    const notTx = { execute: async () => ({ rows: [] }) };
    await expect(runInDrizzleTransaction(guard, notTx, key, async () => {})).rejects.toThrow(InvalidOption);
  });

  it('a guard whose store cannot join a SQL transaction', async () => {
    const memoryGuard = new IdempotencyGuard(new MemoryStore()) as unknown as IdempotencyGuard<PostgresStore>;
    const client = await pool.connect();
    try {
      await expect(runInPgTransaction(memoryGuard, client, key, async () => {})).rejects.toThrow(
        /must be a postgres SQL store/,
      );
    } finally {
      client.release();
    }
  });

  it('outbox.enqueueOnce given a Drizzle tx names the adapter instead of a raw TypeError', async () => {
    const outbox = new Outbox(store);
    const db = drizzle(pool);
    await expect(
      db.transaction((tx) => outbox.enqueueOnce(tx as never, 'order.fulfil', 'wrong-1', {})),
    ).rejects.toThrow(/withDrizzleTransaction \(payonce\/tx\/drizzle\)/);
    // Through the adapter the same call works.
    const result = await db.transaction((tx) =>
      withDrizzleTransaction(store, tx, (trx) => outbox.enqueueOnce(trx, 'order.fulfil', 'wrong-1', {})),
    );
    expect(result.kind).toBe('enqueued');
  });

  it('the Drizzle executor binds $n as parameters (an array stays one value) and leaves a $1 in a literal alone', async () => {
    const db = drizzle(pool);
    const rows = await db.transaction(async (tx) => {
      const result = await drizzleExecutor(tx).execute(
        `select '$1' as literal, "x$2" as quoted, $2::int[] as arr, $1::text as text from (select 1 as "x$2") t`,
        ['one', [1, 2]],
      );
      return result.rows;
    });
    expect(rows).toEqual([{ literal: '$1', quoted: 1, arr: [1, 2], text: 'one' }]);
  });
});

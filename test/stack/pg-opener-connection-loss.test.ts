import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleTransactions } from '../../packages/payonce/src/tx/drizzle.js';
import { pgTransactions } from '../../packages/payonce/src/tx/pg.js';
import { createPostgresNamespace, POSTGRES_TEST_URL, type PostgresNamespace } from '../contract/backends/postgres.js';

// A lent node-postgres client with no `error` listener crashes the process when the server ends its connection
// (a failover, pg_terminate_backend): the opener listens while it holds the client, so the transaction fails
// instead, the dead client is destroyed, and the pool lends a fresh one. Were the listener missing, the client's
// `error` event would be an uncaught exception and vitest would fail this file.

describe('pgTransactions and drizzleTransactions when the server ends the connection mid-transaction', () => {
  let ns: PostgresNamespace;
  let pool: pg.Pool;
  let admin: pg.Client;

  beforeAll(async () => {
    ns = await createPostgresNamespace();
    pool = new pg.Pool({ connectionString: POSTGRES_TEST_URL, options: `-c search_path=${ns.schema}`, max: 1 });
    pool.on('error', () => {}); // an idle client's loss is the pool's own concern, not this test's
    admin = new pg.Client({ connectionString: POSTGRES_TEST_URL });
    await admin.connect();
    await admin.query(`create table ${ns.schema}.conn_loss (id text primary key)`);
  });

  afterAll(async () => {
    await admin?.end();
    await pool?.end();
    await ns?.drop();
  });

  it('rejects the transaction, writes nothing, and the pool lends a working client after', async () => {
    const transactions = pgTransactions(pool);
    const failed = transactions.transaction(async (client) => {
      await client.query({ text: 'insert into conn_loss (id) values ($1)', values: ['lost-1'] });
      const { rows } = await client.query({ text: 'select pg_backend_pid() as pid', values: [] });
      await admin.query('select pg_terminate_backend($1)', [(rows[0] as { pid: number }).pid]);
      await client.query({ text: 'select pg_sleep(0.2)', values: [] });
      return 'committed';
    });
    await expect(failed).rejects.toThrow();
    const { rows } = await admin.query(`select count(*)::int as n from ${ns.schema}.conn_loss`);
    expect(rows[0].n).toBe(0);
    const next = await transactions.transaction(async (client) => {
      await client.query({ text: 'insert into conn_loss (id) values ($1)', values: ['after-1'] });
      return 'committed';
    });
    expect(next).toBe('committed');
  });

  it('drizzleTransactions on a node-postgres pool: the same, the process survives', async () => {
    const transactions = drizzleTransactions(drizzle(pool));
    let lent: pg.PoolClient | undefined;
    const failed = transactions.transaction(async (tx) => {
      lent = (tx as unknown as { _: { session: { client: pg.PoolClient } } })._.session.client;
      await tx.execute(sql`insert into conn_loss (id) values (${'lost-2'})`);
      const { rows } = await tx.execute(sql`select pg_backend_pid() as pid`);
      await admin.query('select pg_terminate_backend($1)', [(rows[0] as { pid: number }).pid]);
      await tx.execute(sql`select pg_sleep(0.2)`);
      return 'committed';
    });
    await expect(failed).rejects.toThrow();
    // Drizzle rolls back and gives the client back after the callback returned; the socket's own ECONNRESET may
    // come in that window or after the pool dropped the client, so the dead client must still have a listener.
    expect(lent?.listenerCount('error')).toBeGreaterThan(0);
    const { rows } = await admin.query(`select count(*)::int as n from ${ns.schema}.conn_loss where id = 'lost-2'`);
    expect(rows[0].n).toBe(0);
    const next = await transactions.transaction(async (tx) => {
      await tx.execute(sql`insert into conn_loss (id) values (${'after-2'})`);
      return 'committed';
    });
    expect(next).toBe('committed');
  });
});

import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DataSource, EntitySchema } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../packages/payonce/src/cli/run-migrate.js';
import { POSTGRES_TEST_URL } from '../../contract/backends/postgres.js';

/** `statement` on a connection of its own. */
async function admin<R extends pg.QueryResultRow>(statement: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    return (await client.query<R>(statement, values)).rows;
  } finally {
    await client.end();
  }
}

/** Tables, sequences, indexes (`schema.name (kind)`), functions and triggers of the given schemas. */
async function objects(schemas: string[]): Promise<string[]> {
  const rows = await admin<{ name: string }>(
    `select n.nspname || '.' || c.relname || ' (' || c.relkind::text || ')' as name from pg_class c
       join pg_namespace n on n.oid = c.relnamespace where c.relkind in ('r', 'S', 'i') and n.nspname = any($1)
     union all select n.nspname || '.' || p.proname || ' (f)' from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = any($1)
     union all select t.tgname || ' (t)' from pg_trigger t join pg_class c on c.oid = t.tgrelid
       join pg_namespace n on n.oid = c.relnamespace where not t.tgisinternal and n.nspname = any($1)
     order by 1`,
    [schemas],
  );
  return rows.map((row) => row.name);
}

const Order = new EntitySchema<{ id: string; paid: boolean }>({
  name: 'orders',
  columns: { id: { type: 'text', primary: true }, paid: { type: 'boolean', default: false } },
});

/** TypeORM's `synchronize()` (what `typeorm schema:sync` runs) on schema `schema` with one entity. */
async function synchronize(schema: string): Promise<void> {
  const source = new DataSource({ type: 'postgres', url: POSTGRES_TEST_URL, schema, entities: [Order] });
  await source.initialize();
  try {
    await source.synchronize();
  } finally {
    await source.destroy();
  }
}

describe("TypeORM schema sync on a database holding payonce's tables", () => {
  const suffix = randomBytes(5).toString('hex');
  const shared = `ns_to_shared_${suffix}`;
  const user = `ns_to_user_${suffix}`;
  const own = `ns_to_payonce_${suffix}`;
  const io = { out: () => {} };
  const searchPath = (schema: string) => {
    const url = new URL(POSTGRES_TEST_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return url.toString();
  };

  beforeAll(async () => {
    await admin(`create schema ${shared}`);
    await admin(`create schema ${user}`);
  });
  afterAll(async () => {
    for (const schema of [shared, user, own]) await admin(`drop schema if exists ${schema} cascade`);
  });

  it("payonce's tables in TypeORM's own schema: synchronize creates the entity's table and leaves payonce's objects alone", async () => {
    await runMigrate(searchPath(shared), io, {});
    const before = await objects([shared]);
    expect(before).toContain(`${shared}.payonce_outbox_order_seq_seq (S)`);
    await synchronize(shared);
    const after = await objects([shared]);
    expect(after.filter((name) => name.includes('payonce'))).toEqual(before);
    expect(after).toContain(`${shared}.orders (r)`);
  });

  it("payonce in a schema of its own (--schema): synchronize on the user's schema never touches it", async () => {
    await runMigrate(searchPath(user), io, { schema: own });
    const before = await objects([own]);
    await synchronize(user);
    expect(await objects([own])).toEqual(before);
    expect(await objects([user])).toContain(`${user}.orders (r)`);
  });
});

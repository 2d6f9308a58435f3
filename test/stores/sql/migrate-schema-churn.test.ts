import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import {
  createPostgresNamespace,
  POSTGRES_TEST_URL,
  type PostgresNamespace,
} from '../../contract/backends/postgres.js';

/**
 * Kysely's migrator looks for its table by listing the tables of every schema of the database (with
 * `has_schema_privilege` on each schema's name), so a schema dropped by someone else during that scan made our
 * migration fail with `3F000` naming the other schema (seen in the test suite, where suites drop their schemas;
 * 16 of these 25 migrations failed before `withSchemaScopedIntrospection`).
 */
describe('PostgreSQL migrate while other schemas come and go', () => {
  const namespaces: PostgresNamespace[] = [];
  afterAll(async () => {
    await Promise.all(namespaces.map((ns) => ns.drop()));
  });

  it('migrates every fresh schema although other schemas with tables are dropped meanwhile', async () => {
    const churn = new pg.Client({ connectionString: POSTGRES_TEST_URL });
    await churn.connect();
    let running = true;
    const churning = (async () => {
      while (running) {
        const name = `payonce_churn_${randomBytes(6).toString('hex')}`;
        await churn.query(`create schema ${name}`);
        await churn.query(`create table ${name}.a (id int primary key, note text)`);
        await churn.query(`create table ${name}.b (id serial primary key)`);
        await churn.query(`drop schema ${name} cascade`);
      }
    })();
    const failures: string[] = [];
    try {
      for (let i = 0; i < 25; i++) {
        const ns = await createPostgresNamespace();
        namespaces.push(ns);
        const store = await PostgresStore.connect(ns.config);
        try {
          await store.migrate();
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error));
        } finally {
          await store.close();
        }
      }
    } finally {
      running = false;
      await churning;
      await churn.end();
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

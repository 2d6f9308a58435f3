import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  type PostgresPoolConfig,
  PostgresStore,
} from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import type { SqlBatching } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import type { TestBackend } from '../backend.js';

/** The test server: `PAYONCE_TEST_POSTGRES_URL`, or the machine's PostgreSQL with trust auth. */
export const POSTGRES_TEST_URL = process.env.PAYONCE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema `payonce_t_<random>`; connections made with `config` or `url` use it as their search_path. */
export interface PostgresNamespace {
  readonly schema: string;
  readonly config: PostgresPoolConfig;
  /** The same target as a URL (`?options=-c search_path=…`), as `payonce migrate` takes it. */
  readonly url: string;
  drop(): Promise<void>;
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Creates an empty schema (not migrated). */
export async function createPostgresNamespace(): Promise<PostgresNamespace> {
  const schema = `payonce_t_${randomBytes(6).toString('hex')}`;
  await admin(`create schema ${schema}`);
  const options = `-c search_path=${schema}`;
  const url = new URL(POSTGRES_TEST_URL);
  url.searchParams.set('options', options);
  return {
    schema,
    config: { connectionString: POSTGRES_TEST_URL, options },
    url: url.toString(),
    drop: () => admin(`drop schema if exists ${schema} cascade`),
  };
}

/** A migrated PostgreSQL schema; every `open()` is a store on a new pool using that schema (with `options.batching`). */
export async function postgresBackend(options: { batching?: boolean | SqlBatching } = {}): Promise<TestBackend> {
  const namespace = await createPostgresNamespace();
  const setup = await PostgresStore.connect(namespace.config);
  try {
    await setup.migrate();
  } finally {
    await setup.close();
  }
  const opened: PostgresStore[] = [];
  return {
    name: 'postgres',
    async open() {
      const store = await PostgresStore.connect(namespace.config, { batching: options.batching });
      opened.push(store);
      return store;
    },
    async cleanup() {
      await Promise.all(opened.map((store) => store.close()));
      await namespace.drop();
    },
  };
}

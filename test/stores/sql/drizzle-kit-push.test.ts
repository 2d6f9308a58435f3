import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../packages/payonce/src/cli/run-migrate.js';
import { POSTGRES_TEST_URL } from '../../contract/backends/postgres.js';

/**
 * `drizzle-kit push` (a child process, non-interactive: `--force`, stdin closed) on a database holding payonce's
 * tables, with the setting docs/your-stack.md "Migration tools" documents. Each case gets a database of its own
 * (drizzle-kit's filters are per schema and per table name), dropped after.
 */
const ROOT = resolve(import.meta.dirname, '../../..');
const DRIZZLE_KIT = join(ROOT, 'node_modules/.bin/drizzle-kit');

const USER_SCHEMA = `import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
export const orders = pgTable('orders', { id: text('id').primaryKey(), paid: boolean('paid').notNull().default(false) });
`;

function urlOf(database: string): string {
  const url = new URL(POSTGRES_TEST_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function query<R extends pg.QueryResultRow>(url: string, statement: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(statement)).rows;
  } finally {
    await client.end();
  }
}

/** Every table, sequence, function and trigger of `database` outside the system schemas, as `schema.name (kind)`. */
async function objects(url: string): Promise<string[]> {
  const rows = await query<{ name: string }>(
    url,
    `select n.nspname || '.' || c.relname || ' (' || c.relkind::text || ')' as name from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       where c.relkind in ('r', 'S', 'i') and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
     union all select n.nspname || '.' || p.proname || ' (f)' from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname not in ('pg_catalog', 'information_schema')
     union all select tgname || ' (t)' from pg_trigger where not tgisinternal
     order by 1`,
  );
  return rows.map((row) => row.name);
}

/** Runs `drizzle-kit push --config <config> --force --verbose` in `dir`; its exit code and output. */
function push(dir: string, config: string): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = execFile(
      DRIZZLE_KIT,
      ['push', '--config', config, '--force', '--verbose'],
      { cwd: dir, timeout: 240_000, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        done({ code, output: `${stdout}\n${stderr}` });
      },
    );
    child.stdin?.end();
  });
}

describe('drizzle-kit push on a database holding payonce tables', () => {
  const suffix = randomBytes(5).toString('hex');
  const schemaDb = `ns_dk_schema_${suffix}`;
  const prefixDb = `ns_dk_prefix_${suffix}`;
  const io = { out: () => {} };
  let dir: string;

  beforeAll(async () => {
    await query(POSTGRES_TEST_URL, `create database ${schemaDb}`);
    await query(POSTGRES_TEST_URL, `create database ${prefixDb}`);
    dir = await mkdtemp(join(tmpdir(), 'payonce-drizzle-kit-'));
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await writeFile(join(dir, 'schema.ts'), USER_SCHEMA);
    const config = (url: string, filter: string) =>
      `import { defineConfig } from 'drizzle-kit';\nexport default defineConfig({ dialect: 'postgresql', schema: './schema.ts', dbCredentials: { url: '${url}' }, ${filter} });\n`;
    await writeFile(join(dir, 'schema.config.ts'), config(urlOf(schemaDb), "schemaFilter: ['public']"));
    await writeFile(join(dir, 'prefix.config.ts'), config(urlOf(prefixDb), "tablesFilter: ['!payonce_*']"));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    await query(POSTGRES_TEST_URL, `drop database if exists ${schemaDb} with (force)`);
    await query(POSTGRES_TEST_URL, `drop database if exists ${prefixDb} with (force)`);
  });

  it("payonce's tables in schema payonce + schemaFilter ['public']: push creates the user's table and leaves payonce's objects and rows alone", async () => {
    const url = urlOf(schemaDb);
    await runMigrate(url, io, { schema: 'payonce' });
    await query(
      url,
      `insert into payonce.payonce_outbox_order (job_id, aggregate_key) values ('00000000-0000-0000-0000-000000000001', 'agg')`,
    );
    const before = await objects(url);
    expect(before).toContain('payonce.payonce_outbox_order_seq_seq (S)');
    expect(before).toContain('payonce.payonce_receipts (r)');

    const { code, output } = await push(dir, 'schema.config.ts');
    expect(output).not.toMatch(/error/i);
    expect(code).toBe(0);

    const after = await objects(url);
    expect(after.filter((name) => !name.startsWith('public.'))).toEqual(before);
    expect(after).toContain('public.orders (r)');
    expect(await query(url, 'select job_id from payonce.payonce_outbox_order')).toHaveLength(1);
    // A second push finds nothing to change.
    expect((await push(dir, 'schema.config.ts')).output).not.toMatch(/DROP|ALTER|RENAME/);
  }, 600_000);

  it("payonce's tables in public + tablesFilter ['!payonce_*'] (drizzle-kit 0.31.11): push still tries DROP SEQUENCE payonce_outbox_order_seq_seq and fails on it", async () => {
    const url = urlOf(prefixDb);
    await runMigrate(url, io, {});
    const before = await objects(url);

    const { output } = await push(dir, 'prefix.config.ts');
    expect(output).toContain('DROP SEQUENCE "public"."payonce_outbox_order_seq_seq"');
    expect(output).toContain('cannot drop sequence payonce_outbox_order_seq_seq');

    // The failed DROP changed nothing of payonce's (tables and the sequence are there).
    const after = await objects(url);
    expect(after.filter((name) => name.includes('payonce'))).toEqual(before.filter((name) => name.includes('payonce')));
  }, 600_000);
});

const SQLITE_USER_SCHEMA = `import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
export const orders = sqliteTable('orders', { id: text('id').primaryKey(), paid: integer('paid').notNull().default(0) });
`;

/** Every object of the SQLite file but SQLite's own, as `name (type)`, sorted. */
function sqliteObjects(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare("select name || ' (' || type || ')' as name from sqlite_master where name not like 'sqlite%' order by 1")
      .all();
    return (rows as { name: string }[]).map((row) => row.name);
  } finally {
    db.close();
  }
}

describe('drizzle-kit push on a SQLite file holding payonce tables under a table prefix', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-drizzle-kit-sqlite-'));
    file = join(dir, 'shared.db');
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await writeFile(join(dir, 'schema.ts'), SQLITE_USER_SCHEMA);
    await writeFile(
      join(dir, 'sqlite.config.ts'),
      `import { defineConfig } from 'drizzle-kit';\nexport default defineConfig({ dialect: 'sqlite', schema: './schema.ts', dbCredentials: { url: '${file}' }, tablesFilter: ['!billing_*'] });\n`,
    );
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("payonce migrate --table-prefix billing_ + tablesFilter ['!billing_*']: push creates the user's table and leaves payonce's tables, indexes and rows alone", async () => {
    await runMigrate(file, { out: () => {} }, { tablePrefix: 'billing_' });
    const seed = new Database(file);
    seed.prepare(`insert into billing_outbox_order (job_id, aggregate_key) values ('job-1', 'agg')`).run();
    seed.close();
    const before = sqliteObjects(file);
    expect(before).toContain('billing_receipts (table)');
    expect(before).toContain('billing_receipts_finished_at_idx (index)');

    const { code, output } = await push(dir, 'sqlite.config.ts');
    expect(output).not.toMatch(/error/i);
    expect(code).toBe(0);

    const after = sqliteObjects(file);
    expect(after.filter((name) => !name.startsWith('orders '))).toEqual(before);
    expect(after).toContain('orders (table)');
    const read = new Database(file, { readonly: true });
    expect(read.prepare('select job_id from billing_outbox_order').all()).toHaveLength(1);
    read.close();
    // A second push finds nothing to change.
    expect((await push(dir, 'sqlite.config.ts')).output).not.toMatch(/DROP|ALTER|RENAME/);
  }, 600_000);
});

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../packages/cli/src/cli-io.js';
import { runCli } from '../../../packages/cli/src/run-cli.js';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { migrate } from '../../../packages/payonce/src/stores/sql/migrate.js';
import { ALL_MIGRATIONS } from '../../../packages/payonce/src/stores/sql/migrations/all-migrations.js';
import { schema } from '../../../packages/payonce/src/stores/sql/schema.js';
import type { SqlDialectName } from '../../../packages/payonce/src/stores/sql/sql-dialect.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { tsChildArgs } from '../../support/ts-child.js';
import { SQL_DIALECTS, type SqlNamespace, sqlNamespaces } from './sql-namespaces.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

const main = fileURLToPath(new URL('../../../packages/payonce/src/cli/main.ts', import.meta.url));

/** Runs `payonce` (from source, through tsx) in a child process. */
function runProcess(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, tsChildArgs(main, args), { stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every index on payonce_receipts as `unique:col1,col2`, sorted. */
async function receiptIndexes<DB>(dialect: SqlDialectName, kysely: Kysely<DB>): Promise<string[]> {
  const db = kysely as unknown as Kysely<unknown>;
  let rows: { unique: unknown; cols: string }[];
  if (dialect === 'postgres') {
    rows = (
      await sql<{ unique: boolean; cols: string }>`
        select x.indisunique as unique, string_agg(a.attname::text, ',' order by k.ord) as cols
        from pg_index x
        join pg_class t on t.oid = x.indrelid
        join unnest(x.indkey) with ordinality as k(attnum, ord) on true
        join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
        where t.relname = 'payonce_receipts' and t.relnamespace = current_schema()::regnamespace
        group by x.indexrelid, x.indisunique`.execute(db)
    ).rows;
  } else if (dialect === 'mysql') {
    rows = (
      await sql<{ unique: number; cols: string }>`
        select min(non_unique) = 0 as \`unique\`, group_concat(column_name order by seq_in_index) as cols
        from information_schema.statistics
        where table_schema = database() and table_name = 'payonce_receipts'
        group by index_name`.execute(db)
    ).rows;
  } else {
    const list = await sql<{ name: string; unique: number }>`pragma index_list(payonce_receipts)`.execute(db);
    rows = [];
    for (const index of list.rows) {
      const info = await sql<{
        name: string;
      }>`select name from pragma_index_info(${index.name}) order by seqno`.execute(db);
      rows.push({ unique: index.unique, cols: info.rows.map((c) => c.name).join(',') });
    }
  }
  return rows.map((r) => `${Number(r.unique) ? 'unique' : 'index'}:${r.cols}`).sort();
}

/** Every released migration, oldest first (other features append theirs). */
const NAMES = ALL_MIGRATIONS.map((m) => m.name);

const EXPECTED_INDEXES = [
  'index:finished_at',
  'index:provider,finished_at',
  'index:status,claimed_at',
  'unique:provider,external_id',
];

/** A claim, completion and replayable read through the store: the table has the shape the store needs. */
async function roundTrip<DB>(store: SqlStore<DB>): Promise<void> {
  const key = new RequestKey('migrate', randomUUID());
  expect((await store.insertClaim({ key, nowMs: 1_000, fingerprint: null })).inserted).toBe(true);
  const body = new Uint8Array([0, 0xfe, 0xff]);
  expect(await store.complete({ key, attempt: 1, nowMs: 2_000, response: { status: 202, headers: {}, body } })).toBe(
    true,
  );
  expect((await store.find(key))?.response?.body).toEqual(body);
}

for (const dialect of SQL_DIALECTS) {
  describe(`${dialect}: schema and migrations`, () => {
    const namespaces: SqlNamespace[] = [];
    const fresh = async () => {
      const ns = await sqlNamespaces[dialect]();
      namespaces.push(ns);
      return ns;
    };
    afterAll(async () => {
      await Promise.all(namespaces.map((ns) => ns.drop()));
    });

    it('`payonce migrate` applies every migration once and succeeds again with nothing to apply', async () => {
      const ns = await fresh();
      const first = capture();
      expect(await runCli(['migrate', '--database-url', ns.url], first)).toBe(0);
      expect(first.lines.filter((line) => line.startsWith('applied '))).toEqual(NAMES.map((n) => `applied ${n}`));
      const second = capture();
      expect(await runCli(['migrate', '--database-url', ns.url], second)).toBe(0);
      expect(second.lines).toContain(`nothing to apply; already applied: ${NAMES.join(', ')}`);
      const store = await ns.open();
      expect(await receiptIndexes(dialect, store.db)).toEqual(EXPECTED_INDEXES);
      await roundTrip(store);
    });

    it('schema() applies cleanly, twice, and migrate() afterwards only records it', async () => {
      const ns = await fresh();
      const store = await ns.open();
      const statements = schema(dialect);
      expect(statements).toEqual(ALL_MIGRATIONS.flatMap((m) => m.statements[dialect]));
      expect(statements.length).toBeGreaterThan(0);
      for (let round = 0; round < 2; round++) {
        for (const ddl of statements) await sql.raw(ddl).execute(store.db);
      }
      expect(await receiptIndexes(dialect, store.db)).toEqual(EXPECTED_INDEXES);
      await roundTrip(store);
      expect(await migrate(store.db, dialect)).toEqual({ applied: NAMES, alreadyApplied: [], notSelected: [] });
      expect(await store.migrate()).toEqual({ applied: [], alreadyApplied: NAMES, notSelected: [] });
    });

    it('two concurrent migrations on separate connections both succeed and apply once', async () => {
      const ns = await fresh();
      if (dialect === 'sqlite') {
        // better-sqlite3 blocks its thread while waiting for a lock: concurrent runs means separate processes.
        const runs = await Promise.all([0, 1].map(() => runProcess(['migrate', '--database-url', ns.url])));
        expect(runs.map((r) => r.code)).toEqual([0, 0]);
        expect(runs.filter((r) => r.stdout.includes(`applied ${NAMES[0]}`))).toHaveLength(1);
        expect(runs.filter((r) => r.stdout.includes('nothing to apply'))).toHaveLength(1);
      } else {
        const [a, b] = await Promise.all([ns.open(), ns.open()]);
        const reports = await Promise.all([a.migrate(), b.migrate()]);
        expect(reports.flatMap((r) => r.applied)).toEqual(NAMES);
      }
      await roundTrip(await ns.open());
    });
  });
}

describe('schema() and migrate() argument checks', () => {
  it('returns bare statements (no trailing semicolon) and rejects an unknown dialect', () => {
    for (const dialect of SQL_DIALECTS) {
      for (const ddl of schema(dialect)) expect(ddl.trim().endsWith(';')).toBe(false);
    }
    expect(() => schema('oracle' as SqlDialectName)).toThrow(InvalidOption);
  });
});

describe('payonce migrate errors', () => {
  it.each([
    ['redis://127.0.0.1:6379', 'unsupported scheme "redis:"'],
    ['postgres://user:hunter2@[broken', 'is not a valid URL'],
    ['   ', 'is empty'],
  ])('exits 2 with a clear message for --database-url %j', async (url, message) => {
    const io = capture();
    expect(await runCli(['migrate', '--database-url', url], io)).toBe(2);
    const output = io.lines.join('\n');
    expect(output).toContain(message);
    expect(output).not.toContain('hunter2');
  });

  it('exits 2 when --database-url is missing and 1 when the server refuses the connection', async () => {
    const missing = capture();
    expect(await runCli(['migrate'], missing)).toBe(2);
    expect(missing.lines.join('\n')).toContain('--database-url');
    const refused = capture();
    expect(await runCli(['migrate', '--database-url', 'postgres://postgres@127.0.0.1:1/test'], refused)).toBe(1);
    expect(refused.lines.join('\n')).toMatch(/payonce migrate: .*ECONNREFUSED/);
  });
});

describe('payonce migrate as a process', () => {
  let ns: SqlNamespace;
  beforeAll(async () => {
    ns = await sqlNamespaces.sqlite();
  });
  afterAll(async () => {
    await ns?.drop();
  });

  it('exits 0 twice on a SQLite file (sqlite: URL) and 2 on a bad URL, with the message on stderr', async () => {
    const first = await runProcess(['migrate', '--database-url', `sqlite:${ns.url}`]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain(`applied ${NAMES[0]}`);
    const second = await runProcess(['migrate', '--database-url', `sqlite:${ns.url}`]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('nothing to apply');
    const bad = await runProcess(['migrate', '--database-url', 'ftp://example.com/db']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unsupported scheme "ftp:"');
  });
});

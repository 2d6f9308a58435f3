import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { expectFullDemoPassed } from './support/demo-assertions.js';
import { runPayonce } from './support/run-payonce.js';

// `DATABASE_URL=postgres://… npm start` and `DATABASE_URL=mysql://… npm start`, each on a namespace of its own
// (a fresh PostgreSQL schema, a fresh MariaDB database) that the test drops afterwards. Needs `npm run build`.
// One run per database, with 3 replicas: it holds every scenario a single service runs (12 restarts a replica on
// the same database) plus 19–22; the single-service demo runs in demo.test.ts (SQLite). The second test runs on the
// namespace the first left behind, whose payonce_payme_keys keeps that demo's Payme key.
const servers = [
  { name: 'PostgreSQL', dialect: 'postgres', create: createPostgresNamespace },
  { name: 'MariaDB', dialect: 'mysql', create: createMysqlNamespace },
] as const;

describe.each(servers)('payonce demo with DATABASE_URL on $name', ({ dialect, create }) => {
  let dir: string;
  let namespace: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `payonce-demo-${dialect}-`));
    namespace = await create();
  });
  afterAll(async () => {
    await namespace?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('passes every scenario with 3 replicas on the same database (npm start -- --replicas 3), 19–22 included', async () => {
    const reportPath = join(dir, 'replicas.json');
    // About 25 s on a quiet host; at the start of `npm test` it runs beside the other heaviest files and the type
    // check, where CI measured over 120 s. The generous bound only keeps a hang from holding the suite.
    const run = await runPayonce(
      ['demo', '--replicas', '3', '--report', reportPath],
      { DATABASE_URL: namespace.url },
      280_000,
    );
    const report = await expectFullDemoPassed(run, reportPath, 3);
    expect(report.demo.database.startsWith(`${dialect} `)).toBe(true);
    expect(run.stdout).toContain(`3 replicas of payonce serve on ${dialect} `);
    expect(report.demo.replicas).toHaveLength(3);
    expect(run.stdout).toMatch(/forwarded to the replicas round-robin/);
  }, 300_000);

  it('skips the Payme storm, with the reason, on a database an earlier demo seeded with its own Payme key', async () => {
    // A few seconds on a quiet host; CI measured 43 s and over 60 s on a loaded one (the same bound as above).
    const run = await runPayonce(['demo', '--only', '1'], { DATABASE_URL: namespace.url }, 280_000);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^PASS: 1\/1 scenarios/m);
    expect(run.stdout).toMatch(/^Payme storm skipped: the database keeps the Payme key of an earlier run/m);
    expect(run.stdout).not.toMatch(/Payme scenarios/);
  }, 300_000);
});

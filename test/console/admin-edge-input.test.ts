import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDatabase } from '../../packages/service/src/admin/admin-tables.js';
import { backendsFromEnv } from '../contract/backends/index.js';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';
import { type Harness, startHarness } from '../service/service-harness.js';
import { admin } from './admin-client.js';

const TOKEN = randomBytes(32).toString('base64url');
const selected = new Set<string>(backendsFromEnv());

/** Text PostgreSQL cannot store (NUL) and text MariaDB's ASCII columns cannot compare (non-ASCII). */
const BAD_TEXT = ['a\u0000b', 'ordér-ü-\u{1F600}', '\u0000'];
/** Past PostgreSQL's bigint and past 2^53. */
const HUGE = '99999999999999999999999';

const e = encodeURIComponent;

/** Every GET of the admin API with a bad value in each text position. */
function badReads(text: string): string[] {
  const cursor = Buffer.from(JSON.stringify([0, text, text])).toString('base64url');
  return [
    `/admin/api/receipts?provider=${e(text)}`,
    `/admin/api/receipts?cursor=${cursor}`,
    `/admin/api/deliveries?provider=${e(text)}`,
    `/admin/api/deliveries?eventType=${e(text)}`,
    `/admin/api/deliveries?eventKey=${e(text)}`,
    `/admin/api/deliveries?cursor=${cursor}`,
    `/admin/api/deliveries/${e(text)}`,
    `/admin/api/jobs?topic=${e(text)}`,
    `/admin/api/attempts?orderId=${e(text)}`,
    `/admin/api/orders?cursor=${cursor}`,
    `/admin/api/orders/${e(text)}/timeline`,
    `/admin/api/actions?orderId=${e(text)}`,
    `/admin/api/actions?action=${e(text)}`,
  ];
}

/** Every action of the admin API with a bad value in each text position, as [path, body]. */
function badActions(text: string): [string, unknown][] {
  return [
    ['/admin/api/receipts/release', { provider: text, externalId: 'evt_1', expectedAttempts: 1 }],
    ['/admin/api/receipts/release', { provider: 'stripe', externalId: text, expectedAttempts: 1 }],
    ['/admin/api/receipts/retry', { provider: 'stripe', externalId: text }],
    [`/admin/api/jobs/${e(text)}/rerun`, {}],
    [`/admin/api/attempts/${e(text)}/reconcile`, {}],
    [`/admin/api/deliveries/${e(text)}/replay`, { dryRun: false }],
    ['/admin/api/deliveries/replay', { filter: { eventKey: text }, dryRun: false }],
    ['/admin/api/deliveries/replay', { filter: { provider: text }, dryRun: true }],
  ];
}

async function count(db: Kysely<AdminDatabase>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

type Namespace = { url: string; drop: () => Promise<void> };
const BACKENDS: { name: string; open: () => Promise<Namespace> }[] = [
  { name: 'sqlite', open: async () => createSqliteNamespace().then((ns) => ({ url: ns.path, drop: ns.drop })) },
  { name: 'postgres', open: createPostgresNamespace },
  { name: 'mysql', open: createMysqlNamespace },
];

for (const backend of BACKENDS) {
  describe.runIf(selected.has(backend.name))(`admin API edge input on ${backend.name}`, () => {
    let h: Harness;
    let db: Kysely<AdminDatabase>;
    beforeAll(async () => {
      const ns = await backend.open();
      h = await startHarness({ databaseUrl: ns.url, dropDatabase: ns.drop, adminToken: TOKEN, worker: false });
      db = h.service.context.store.db as unknown as Kysely<AdminDatabase>;
    });
    afterAll(async () => {
      await h?.close();
    });

    it('answers every read with NUL, non-ASCII or a huge number 400 ADMIN_QUERY_INVALID, never 5xx', async () => {
      const paths = [
        ...BAD_TEXT.flatMap(badReads),
        `/admin/api/deliveries?fromMs=${HUGE}`,
        `/admin/api/deliveries?toMs=${HUGE}`,
        '/admin/api/deliveries?fromMs=1e400',
        `/admin/api/receipts?limit=${HUGE}`,
      ];
      for (const path of paths) {
        const answer = await admin<{ code: string }>(h.service.url, 'GET', path, { token: TOKEN });
        expect(answer.status, path).toBe(400);
        expect(answer.body.code, path).toBe('ADMIN_QUERY_INVALID');
        expect(answer.headers.get('content-type'), path).toContain('application/problem+json');
      }
    });

    it('refuses every action with NUL, non-ASCII or a huge number 400 before any write, and journals the refusal', async () => {
      const cases: [string, unknown][] = [
        ...BAD_TEXT.flatMap(badActions),
        ['/admin/api/receipts/release', { provider: 'stripe', externalId: 'evt_1', expectedAttempts: 1e30 }],
        ['/admin/api/deliveries/replay', { filter: { fromMs: Number(HUGE) }, dryRun: false }],
        ['/admin/api/deliveries/replay', { filter: { toMs: 2 ** 63 }, dryRun: true }],
      ];
      const receipts = await count(db, 'payonce_receipts');
      const journal = await count(db, 'payonce_admin_actions');
      for (const [path, body] of cases) {
        const label = `${path} ${JSON.stringify(body)}`;
        const answer = await admin<{ code: string }>(h.service.url, 'POST', path, {
          token: TOKEN,
          body,
          headers: { 'x-operator': 'ops-placeholder' },
        });
        expect(answer.status, label).toBe(400);
        expect(answer.body.code, label).toBe('ADMIN_QUERY_INVALID');
      }
      expect(await count(db, 'payonce_receipts')).toBe(receipts);
      expect(await count(db, 'payonce_admin_actions')).toBe(journal + cases.length);
      const rows = await db
        .selectFrom('payonce_admin_actions')
        .select(['actor', 'outcome', 'target', 'action'])
        .orderBy('at', 'desc')
        .limit(cases.length)
        .execute();
      for (const row of rows) {
        expect(row).toMatchObject({ actor: 'ops-placeholder', outcome: 'refused' });
        expect(row.target).toMatch(/^[\x20-\x7e]+$/);
      }
      expect(new Set(rows.map((r) => r.action))).toEqual(
        new Set([
          'release-claim',
          'retry-receipt',
          'rerun-job',
          'reconcile-attempt',
          'replay-delivery',
          'replay-range',
        ]),
      );
    });

    it('answers every action whose body is not a JSON object 400 ADMIN_QUERY_INVALID and journals the refusal', async () => {
      const paths = [
        '/admin/api/receipts/release',
        '/admin/api/receipts/retry',
        '/admin/api/jobs/job-placeholder/rerun',
        '/admin/api/attempts/attempt-placeholder/reconcile',
        '/admin/api/deliveries/delivery-placeholder/replay',
        '/admin/api/deliveries/replay',
      ];
      const bodies: unknown[] = [[], [1], [{ dryRun: false }], null, 'x', 1, true];
      const journal = await count(db, 'payonce_admin_actions');
      for (const path of paths) {
        for (const body of bodies) {
          const label = `${path} ${JSON.stringify(body)}`;
          const answer = await admin<{ code: string }>(h.service.url, 'POST', path, { token: TOKEN, body });
          expect(answer.status, label).toBe(400);
          expect(answer.body.code, label).toBe('ADMIN_QUERY_INVALID');
        }
      }
      expect(await count(db, 'payonce_admin_actions')).toBe(journal + paths.length * bodies.length);
      const rows = await db
        .selectFrom('payonce_admin_actions')
        .select(['outcome', 'target'])
        .orderBy('at', 'desc')
        .limit(paths.length * bodies.length)
        .execute();
      for (const row of rows) {
        expect(row.outcome).toBe('refused');
        expect(row.target).toMatch(/^[\x20-\x7e]+$/);
      }
    });

    it('journals an action refused for a missing Idempotency-Key', async () => {
      const journal = await count(db, 'payonce_admin_actions');
      const answer = await admin<{ code: string }>(h.service.url, 'POST', '/admin/api/jobs/no-such-job/rerun', {
        token: TOKEN,
        body: {},
        key: null,
      });
      expect(answer.status).toBe(400);
      expect(await count(db, 'payonce_admin_actions')).toBe(journal + 1);
    });
  });
}

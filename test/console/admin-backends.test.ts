import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { AdminDatabase } from '../../packages/service/src/admin/admin-tables.js';
import { backendsFromEnv } from '../contract/backends/index.js';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { type Harness, orderAndCheckout, startHarness, untilFulfilled } from '../service/service-harness.js';
import { admin } from './admin-client.js';

const selected = new Set<string>(backendsFromEnv());
const TOKEN = `tok_${randomUUID()}`;

type Namespace = { url: string; drop: () => Promise<void> };
const BACKENDS: { name: string; open: () => Promise<Namespace> }[] = [
  { name: 'postgres', open: createPostgresNamespace },
  { name: 'mysql', open: createMysqlNamespace },
];

async function countOf(db: Kysely<AdminDatabase>, table: string, where = sql`1 = 1`): Promise<number> {
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

for (const backend of BACKENDS) {
  describe.runIf(selected.has(backend.name))(`operator console reads and actions on ${backend.name}`, () => {
    let h: Harness;
    let ns: Namespace;
    beforeAll(async () => {
      ns = await backend.open();
      h = await startHarness({ databaseUrl: ns.url, dropDatabase: ns.drop, adminToken: TOKEN });
    });
    afterAll(async () => {
      await h?.close();
    });

    it('counts, lists, pages, timelines, releases and reruns exactly as on SQLite; the CLI reads the same', async () => {
      const url = h.service.url;
      const ctx = h.service.context;
      const db = ctx.store.db as unknown as Kysely<AdminDatabase>;
      const orders: string[] = [];
      for (let i = 0; i < 2; i++) {
        const { orderId } = await orderAndCheckout(url);
        await untilFulfilled(url, orderId, 'customer-a', 15_000);
        orders.push(orderId);
      }
      const stuckId = `evt_stuck_${randomUUID()}`;
      await ctx.intakeGuard.store.insertClaim({
        key: new RequestKey('stripe', stuckId),
        nowMs: Date.now() - 600_000,
        fingerprint: null,
      });

      const overview = await admin<{
        receipts: { total: number; stuck: number; failed: number };
        orders: { total: number; completed: number };
        jobs: { total: number };
        deliveries: {
          lastHour: { total: number };
          perMinute: { new: number; duplicate: number; inProgress: number; rejected: number }[];
        };
      }>(url, 'GET', '/admin/api/overview', { token: TOKEN });
      expect(overview.status).toBe(200);
      expect(overview.body.receipts).toEqual({
        ...overview.body.receipts,
        total: await countOf(db, 'payonce_receipts'),
        stuck: 1,
        failed: 0,
      });
      expect(overview.body.orders).toMatchObject({ total: 2, completed: 2 });
      const perMinute = overview.body.deliveries.perMinute.reduce(
        (n, m) => n + m.new + m.duplicate + m.inProgress + m.rejected,
        0,
      );
      expect(perMinute).toBe(await countOf(db, 'payonce_webhook_deliveries'));
      expect(overview.body.deliveries.lastHour.total).toBe(perMinute);

      const all = await admin<{ items: { provider: string; externalId: string }[] }>(
        url,
        'GET',
        '/admin/api/receipts?limit=200',
        { token: TOKEN },
      );
      const paged: string[] = [];
      let cursor: string | null = '';
      while (cursor !== null) {
        const page: { body: { items: { externalId: string }[]; nextCursor: string | null } } = await admin(
          url,
          'GET',
          `/admin/api/receipts?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          { token: TOKEN },
        );
        paged.push(...page.body.items.map((r) => r.externalId));
        cursor = page.body.nextCursor;
      }
      expect(paged).toEqual(all.body.items.map((r) => r.externalId));
      const stuck = await admin<{ items: { externalId: string }[] }>(url, 'GET', '/admin/api/receipts?stuck=true', {
        token: TOKEN,
      });
      expect(stuck.body.items.map((r) => r.externalId)).toEqual([stuckId]);

      const release = { provider: 'stripe', externalId: stuckId, expectedAttempts: 1 };
      expect((await admin(url, 'POST', '/admin/api/receipts/release', { token: TOKEN, body: release })).status).toBe(
        200,
      );
      const again = await admin<{ code: string }>(url, 'POST', '/admin/api/receipts/release', {
        token: TOKEN,
        body: release,
      });
      expect(again.body.code).toBe('CLAIM_NOT_STALE');

      const orderId = orders[0] ?? '';
      const job = await db
        .selectFrom('payonce_outbox')
        .select('id')
        .where('dedupe_key', '=', `order:${orderId}`)
        .executeTakeFirstOrThrow();
      await db.updateTable('payonce_outbox').set({ status: 'dead' }).where('id', '=', job.id).execute();
      expect((await admin(url, 'POST', `/admin/api/jobs/${job.id}/rerun`, { token: TOKEN, body: {} })).status).toBe(
        200,
      );
      expect(
        (await admin<{ code: string }>(url, 'POST', `/admin/api/jobs/${job.id}/rerun`, { token: TOKEN, body: {} })).body
          .code,
      ).toBe('JOB_NOT_DEAD');
      const view = await untilFulfilled(url, orderId, 'customer-a', 15_000);
      expect(view.fulfilments).toHaveLength(1);

      const timeline = await admin<{
        counts: { fulfilments: number; paidTransitions: number };
        entries: { kind: string }[];
      }>(url, 'GET', `/admin/api/orders/${orderId}/timeline`, { token: TOKEN });
      expect(timeline.body.counts).toMatchObject({ fulfilments: 1, paidTransitions: 1 });
      expect(new Set(timeline.body.entries.map((e) => e.kind))).toEqual(
        new Set(['order', 'attempt', 'provider-call', 'delivery', 'transition', 'job', 'effect', 'action']),
      );

      const out: string[] = [];
      const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l) };
      expect(await runCli(['receipts', '--failed', '--json', '--database-url', ns.url], io)).toBe(0);
      // The operator's own actions refused with a thrown 409 (a claim not stuck) release their Idempotency-Keys
      // (spec §5: thrown errors release the key), so they are failed receipts of provider `admin` too.
      const failed = JSON.parse(out.join('\n')) as { provider: string; externalId: string }[];
      expect(failed.filter((r) => r.provider === 'stripe').map((r) => r.externalId)).toEqual([stuckId]);
      expect(failed.every((r) => r.provider === 'stripe' || r.provider === 'admin')).toBe(true);
      out.length = 0;
      expect(await runCli(['inspect', 'order', orderId, '--json', '--database-url', ns.url], io)).toBe(0);
      expect((JSON.parse(out.join('\n')) as { order: { status: string } }).order.status).toBe('completed');
    });
  });
}

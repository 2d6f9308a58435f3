import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { parseDatabaseUrl } from '../../packages/payonce/src/stores/database-url.js';
import { openSqlStore } from '../../packages/payonce/src/stores/open-sql-store.js';
import { startHousekeeping } from '../../packages/payonce/src/webhooks/housekeeping.js';
import type { DeliveriesDatabase } from '../../packages/payonce/src/webhooks/journal/deliveries-table.js';
import { deliveryId } from '../../packages/payonce/src/webhooks/journal/delivery-id.js';
import { SqlDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';
import { backendsFromEnv } from '../contract/backends/index.js';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace } from '../contract/backends/postgres.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';

const DAY = 86_400_000;
const selected = new Set<string>(backendsFromEnv());
type Namespace = { url: string; drop: () => Promise<void> };
const BACKENDS: { name: string; open: () => Promise<Namespace> }[] = [
  {
    name: 'sqlite',
    open: async () => {
      const ns = await createSqliteNamespace();
      return { url: ns.path, drop: ns.drop };
    },
  },
  { name: 'postgres', open: createPostgresNamespace },
  { name: 'mysql', open: createMysqlNamespace },
];

function captureIo(): CliIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => void lines.push(line), err: (line) => void lines.push(line) };
}

/**
 * Seeds finished receipts and journal rows `ageDays` old, plus a `processing` claim last renewed then (its owner died:
 * an abandoned claim, purged with the same retention as finished receipts, docs/design.md §3 "Purge").
 */
async function seed(url: string, tag: string, ageDays: number): Promise<void> {
  const store = await openSqlStore(parseDatabaseUrl(url));
  try {
    const clock = new ManualClock(Date.now() - ageDays * DAY);
    const guard = new IdempotencyGuard(store, { clock });
    for (const provider of ['stripe', 'payments:sandbox', 'http']) {
      await guard.run(new RequestKey(provider, `${tag}-done`), () => ({ status: 200, body: 'ok' }));
    }
    await store.insertClaim({ key: new RequestKey('stripe', `${tag}-held`), nowMs: clock.now(), fingerprint: null });
    const journal = new SqlDeliveryJournal(store);
    await journal.record({
      id: deliveryId(),
      receivedAtMs: clock.now(),
      provider: 'stripe',
      eventKey: `${tag}-evt`,
      eventType: 'payment_intent.succeeded',
      signature: 'valid',
      decision: 'new',
      outcome: 'completed',
      responseStatus: 200,
      error: null,
      durationMs: 1,
      objectId: null,
      paymentId: null,
      merchantReference: null,
      amountMinor: null,
      currency: null,
      payload: null,
    });
  } finally {
    await store.close();
  }
}

async function remaining(url: string): Promise<{ receipts: string[]; journal: string[] }> {
  const store = await openSqlStore(parseDatabaseUrl(url));
  try {
    const receipts = await store.db.selectFrom('payonce_receipts').select(['provider', 'external_id']).execute();
    const rows = await (store.db as unknown as Kysely<DeliveriesDatabase>)
      .selectFrom('payonce_webhook_deliveries')
      .select('event_key')
      .execute();
    const text = (v: unknown) => (typeof v === 'string' ? v : Buffer.from(v as Uint8Array).toString('utf8'));
    return {
      receipts: receipts.map((r) => `${text(r.provider)}/${text(r.external_id)}`).sort(),
      journal: rows.map((r) => String(r.event_key)).sort(),
    };
  } finally {
    await store.close();
  }
}

for (const backend of BACKENDS) {
  describe.runIf(selected.has(backend.name) || backend.name === 'sqlite')(
    `housekeeping on ${backend.name} (issue #34 item 28)`,
    () => {
      let ns: Namespace;
      beforeAll(async () => {
        ns = await backend.open();
        expect(await runCli(['migrate', '--database-url', ns.url], captureIo())).toBe(0);
      });
      afterAll(async () => {
        await ns?.drop();
      });

      it('payonce purge deletes finished rows and abandoned claims past each retention, nothing younger', async () => {
        await seed(ns.url, 'old', 100);
        await seed(ns.url, 'mid', 10);
        const usage = captureIo();
        expect(await runCli(['purge', '--database-url', ns.url], usage)).toBe(2);
        expect(await runCli(['purge', '--database-url', ns.url, '--journal', '90 days'], usage)).toBe(2);

        const io = captureIo();
        const args = ['purge', '--database-url', ns.url, '--receipts', '30d', '--http-keys', '24h', '--journal', '90d'];
        expect(await runCli([...args, '--json'], io)).toBe(0);
        expect(JSON.parse(io.lines.at(-1) ?? '')).toEqual({ receipts: 3, httpKeys: 2, journal: 1 });
        expect(await remaining(ns.url)).toEqual({
          receipts: ['payments:sandbox/mid-done', 'stripe/mid-done', 'stripe/mid-held'],
          journal: ['mid-evt'],
        });
      });

      it('startHousekeeping purges periodically with a retention per table until stopped', async () => {
        await seed(ns.url, 'lib', 40);
        const store = await openSqlStore(parseDatabaseUrl(ns.url));
        const guard = new IdempotencyGuard(store);
        const reports: unknown[] = [];
        let resolveRun: () => void = () => {};
        const ran = new Promise<void>((resolve) => {
          resolveRun = resolve;
        });
        const housekeeping = startHousekeeping({
          everyMs: 10,
          receipts: [{ guard, olderThanMs: 30 * DAY, provider: 'stripe' }],
          journal: { journal: new SqlDeliveryJournal(store), olderThanMs: 30 * DAY },
          onRun: (report) => {
            reports.push(report);
            resolveRun();
          },
        });
        try {
          await ran;
          await housekeeping.stop();
          expect(reports[0]).toEqual({ receipts: [2], journal: 1 });
          const left = await remaining(ns.url);
          expect(left.receipts).toEqual(expect.arrayContaining(['http/lib-done', 'payments:sandbox/lib-done']));
          expect(left.receipts).not.toContain('stripe/lib-done');
          expect(left.receipts).not.toContain('stripe/lib-held'); // abandoned 40 days ago
          expect(left.journal).not.toContain('lib-evt');
          expect(await housekeeping.runOnce()).toEqual({ receipts: [0], journal: 0 });
          expect(() =>
            startHousekeeping({ journal: { journal: new SqlDeliveryJournal(store), olderThanMs: -1 } }),
          ).toThrow(/olderThanMs/);
        } finally {
          await housekeeping.stop();
          await store.close();
        }
      }, 60_000);
    },
  );
}

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payonceBin } from '../../packages/cli/src/demo/service-launch.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { AdminDatabase } from '../../packages/service/src/admin/admin-tables.js';
import { type Harness, orderAndCheckout, startHarness, untilFulfilled } from '../service/service-harness.js';

let h: Harness;
let orderId: string;
let jobId: string;
const stuckId = `evt_stuck_${randomUUID()}`;
const failedId = `evt_failed_${randomUUID()}`;

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  h = await startHarness();
  const url = h.service.url;
  ({ orderId } = await orderAndCheckout(url));
  await untilFulfilled(url, orderId);
  const ctx = h.service.context;
  const store = ctx.intakeGuard.store;
  await store.insertClaim({ key: new RequestKey('stripe', stuckId), nowMs: Date.now() - 600_000, fingerprint: null });
  await store.insertClaim({ key: new RequestKey('stripe', failedId), nowMs: Date.now(), fingerprint: null });
  await store.fail({
    key: new RequestKey('stripe', failedId),
    attempt: 1,
    nowMs: Date.now(),
    error: 'handler failed for a@example.com',
  });
  const db = ctx.store.db as unknown as Kysely<AdminDatabase>;
  const job = await db
    .selectFrom('payonce_outbox')
    .select('id')
    .where('dedupe_key', '=', `order:${orderId}`)
    .executeTakeFirstOrThrow();
  jobId = job.id;
  await db
    .updateTable('payonce_outbox')
    .set({ status: 'dead', last_error: 'warehouse down' })
    .where('id', '=', jobId)
    .execute();
});
afterAll(async () => {
  await h?.close();
});

describe('payonce inspect order / receipts / jobs', () => {
  it('inspect order prints the timeline, and --json the admin API shape', async () => {
    const text = await cli(['inspect', 'order', orderId, '--database-url', h.databaseUrl]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain(`order ${orderId}: completed, 1999 EUR (minor units)`);
    expect(text.out).toMatch(/attempts 1, paid transitions 1, deliveries \d+ \(rejected 0\), fulfilments 1, refunds 0/);
    expect(text.out).toMatch(/ attempt {7} attempt .* created/);
    expect(text.out).toMatch(/ delivery {6} stripe delivery payment_intent\.succeeded: new \/ completed → 200/);
    expect(text.out).toMatch(/ effect {8} fulfilment recorded/);
    const json = await cli(['inspect', 'order', orderId, '--database-url', h.databaseUrl, '--json']);
    const timeline = JSON.parse(json.out) as { order: { id: string }; entries: { kind: string }[] };
    expect(timeline.order.id).toBe(orderId);
    expect(new Set(timeline.entries.map((e) => e.kind))).toEqual(
      new Set(['order', 'attempt', 'provider-call', 'delivery', 'transition', 'job', 'effect']),
    );
    const missing = await cli(['inspect', 'order', 'no-such-order', '--database-url', h.databaseUrl]);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe('payonce inspect: order no-such-order not found');
  });

  it('receipts --stuck lists only the stale processing claim; --failed the failed one (error scrubbed); one flag is required', async () => {
    const stuck = await cli(['receipts', '--stuck', '--database-url', h.databaseUrl]);
    expect(stuck.code, stuck.err).toBe(0);
    expect(stuck.out.split('\n')[0]).toMatch(/^PROVIDER\s+EXTERNAL ID\s+STATE\s+ATTEMPT\s+CLAIMED \(UTC\)\s+ERROR$/);
    expect(stuck.out).toContain(stuckId);
    expect(stuck.out).not.toContain(failedId);
    const json = await cli(['receipts', '--stuck', '--json', '--database-url', h.databaseUrl]);
    expect(JSON.parse(json.out)).toEqual([
      expect.objectContaining({ provider: 'stripe', externalId: stuckId, stuck: true, attempts: 1 }),
    ]);
    const longer = await cli([
      'receipts',
      '--stuck',
      '--json',
      '--receipt-stale-after-ms',
      '3600000',
      '--database-url',
      h.databaseUrl,
    ]);
    expect(JSON.parse(longer.out)).toEqual([]);
    const failed = await cli(['receipts', '--failed', '--json', '--database-url', h.databaseUrl]);
    const items = JSON.parse(failed.out) as { externalId: string; error: string }[];
    expect(items.map((r) => r.externalId)).toEqual([failedId]);
    expect(items[0]?.error).not.toContain('a@example.com');
    const neither = await cli(['receipts', '--database-url', h.databaseUrl]);
    expect(neither.code).toBe(2);
    expect(neither.err).toContain('exactly one of --stuck and --failed');
  });

  it('jobs --dead lists the dead letter with its last error', async () => {
    const text = await cli(['jobs', '--dead', '--database-url', h.databaseUrl]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain(jobId);
    expect(text.out).toContain('warehouse down');
    const json = await cli(['jobs', '--dead', '--json', '--database-url', h.databaseUrl]);
    expect(JSON.parse(json.out)).toEqual([
      expect.objectContaining({ id: jobId, status: 'dead', topic: 'order.fulfil' }),
    ]);
    expect((await cli(['jobs', '--database-url', h.databaseUrl])).code).toBe(2);
  });
});

describe('payonce console', () => {
  it('needs PAYONCE_ADMIN_TOKEN', async () => {
    const saved = process.env.PAYONCE_ADMIN_TOKEN;
    delete process.env.PAYONCE_ADMIN_TOKEN;
    try {
      const run = await cli(['console', '--database-url', h.databaseUrl, '--port', '0']);
      expect(run.code).toBe(2);
      expect(run.err).toContain('PAYONCE_ADMIN_TOKEN is required');
    } finally {
      if (saved !== undefined) process.env.PAYONCE_ADMIN_TOKEN = saved;
    }
  });

  it('serves the admin API and the console on the database without a service, and stops on SIGTERM', async () => {
    const token = `tok_${randomUUID()}`;
    const child = spawn(
      process.execPath,
      [payonceBin(), 'console', '--database-url', h.databaseUrl, '--port', '0', '--log-level', 'silent'],
      {
        env: { ...process.env, PAYONCE_ADMIN_TOKEN: token },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${stdout} ${stderr}`)), 20_000);
        child.stdout.on('data', () => {
          const match = /payonce console listening on (http:\/\/\S+)\/console\//.exec(stdout);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      const overview = await fetch(`${url}/admin/api/overview`, { headers: { authorization: `Bearer ${token}` } });
      expect(overview.status).toBe(200);
      const body = (await overview.json()) as {
        receipts: { stuck: number; failed: number };
        jobs: { dead: number };
        orders: { total: number };
      };
      expect(body).toMatchObject({ receipts: { stuck: 1, failed: 1 }, jobs: { dead: 1 }, orders: { total: 1 } });
      expect((await fetch(`${url}/admin/api/overview`)).status).toBe(401);
      expect(await (await fetch(`${url}/console/`)).text()).toContain('id="login-form"');
      const reconcile = await fetch(`${url}/admin/api/attempts/${encodeURIComponent('x')}/reconcile`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'idempotency-key': randomUUID(),
          'content-type': 'application/json',
        },
        body: '{}',
      });
      expect(reconcile.status).toBe(404);
      expect((await fetch(`${url}/orders`, { method: 'POST' })).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout).toContain('payonce console: SIGTERM, closing');
    expect(stdout + stderr).not.toContain(token);
  });
});

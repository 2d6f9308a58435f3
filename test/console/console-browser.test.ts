import { createHmac, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { AdminDatabase } from '../../packages/service/src/admin/admin-tables.js';
import { runStorm } from '../../packages/storm/src/run-storm.js';
import { deliver, stripeIntentEvent, until } from '../service/service-harness.js';
import { type StormWorld, startStormWorld } from '../storm/storm-harness.js';

/** Screenshots of every page go here (gitignored). */
const OUT = fileURLToPath(new URL('../../test-output/console/', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const BUILT = existsSync(fileURLToPath(new URL('../../packages/service/dist/console/index.html', import.meta.url)));

let world: StormWorld;
let context: BrowserContext;
let page: Page;
let userDataDir: string;
const consoleErrors: string[] = [];

function db(): Kysely<AdminDatabase> {
  return world.service.context.store.db as unknown as Kysely<AdminDatabase>;
}

/** `select count(*)` of `table`, optionally `where` (raw SQL, values bound). */
async function count(table: string, where?: RawBuilder<unknown>): Promise<number> {
  const query = where
    ? sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where ${where}`
    : sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`;
  const { rows } = await query.execute(db());
  return Number(rows[0]?.n ?? 0);
}

/** Waits until no outbox job is queued or running (the worker has caught up). */
async function quiet(): Promise<void> {
  await until(
    async () =>
      (await count('payonce_outbox', sql`status in ('queued', 'running')`)) === 0 &&
      (await count('payonce_payment_attempts', sql`status = 'creating'`)) === 0,
    15_000,
    'the outbox to drain',
  );
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
}

async function go(hash: string, ready: string): Promise<void> {
  await page.evaluate((h) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = h;
  }, hash);
  await page.waitForSelector(ready);
}

async function confirm(): Promise<void> {
  await page.locator('#confirm-dialog [data-testid="confirm"]').click();
}

describe.skipIf(!existsSync(CHROMIUM) || !BUILT)('web console in Chromium (playwright-core)', () => {
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    world = await startStormWorld();
    userDataDir = mkdtempSync(join(tmpdir(), 'payonce-console-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1360, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await world?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  it('logs in, shows the database counts after a storm, releases a stuck claim once, reruns a dead job once, shows a timeline and replays a range', async () => {
    const url = world.service.url;
    const ctx = world.service.context;

    // A storm run fills the database: double clicks, duplicate webhooks, forgeries, declines.
    const report = await runStorm({
      target: url,
      provider: world.sandbox.url,
      adminToken: world.adminToken,
      // Not 16: it restarts the service, and this test keeps using the one it logged in to.
      only: [1, 8, 10, 11],
      timeoutMs: 15_000,
    });
    expect(report.results.filter((r) => r.verdict !== 'pass').map((r) => `${r.id}: ${r.reasons.join('; ')}`)).toEqual(
      [],
    );
    await world.sandbox.controls.idle(10_000); // no webhook still on its way
    await quiet();

    // A stuck claim made by this test: a webhook receipt left `processing` 10 minutes ago (its worker died).
    const stuckId = `evt_stuck_${randomUUID().replace(/-/g, '')}`;
    await ctx.intakeGuard.store.insertClaim({
      key: new RequestKey('stripe', stuckId),
      nowMs: ctx.clock.now() - 600_000,
      fingerprint: null,
    });

    // 1. Login page; the token never shows up in the URL or the page.
    await page.goto(`${url}/console/`);
    await page.waitForSelector('#login-form');
    await shot('01-login');
    await page.fill('#operator', 'carol');
    await page.fill('#token', world.adminToken);
    await page.click('#login-submit');
    await page.waitForSelector('[data-testid="count-receipts-total"]');
    expect(page.url()).not.toContain(world.adminToken);
    expect(await page.content()).not.toContain(world.adminToken);
    const cookies = await context.cookies(url);
    expect(cookies.find((c) => c.name === 'payonce_console')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    // 2. Overview counts equal the database's.
    const expected = {
      'receipts-total': await count('payonce_receipts'),
      'receipts-stuck': 1,
      'receipts-failed': await count('payonce_receipts', sql`status = 'failed'`),
      'jobs-total': await count('payonce_outbox'),
      'jobs-dead': await count('payonce_outbox', sql`status = 'dead'`),
      'parked-events': await count('payonce_payment_events', sql`decision = 'parked'`),
      'attempts-unresolved': await count('payonce_payment_attempts', sql`status in ('creating', 'unknown')`),
      'orders-total': await count('payonce_orders'),
      'orders-completed': await count('payonce_orders', sql`status = 'completed'`),
      'deliveries-hour': await count('payonce_webhook_deliveries'),
      'deliveries-rejected-hour': await count('payonce_webhook_deliveries', sql`decision = 'rejected'`),
    };
    expect(expected['orders-total']).toBeGreaterThanOrEqual(5);
    expect(expected['deliveries-rejected-hour']).toBeGreaterThan(0);
    const shown: Record<string, number> = {};
    for (const id of Object.keys(expected)) {
      shown[id] = Number(await page.locator(`[data-testid="count-${id}"]`).textContent());
    }
    expect(shown).toEqual(expected);
    await page.waitForSelector('[data-testid="deliveries-chart"] canvas');
    await shot('02-overview');

    // 3. The stuck receipt is listed; a second tab keeps the stale list open.
    await go('#/receipts?stuck=true', `tr[data-external-id="${stuckId}"]`);
    const second = await context.newPage();
    second.on('pageerror', (error) => consoleErrors.push(error.message));
    await second.goto(`${url}/console/#/receipts?stuck=true`);
    await second.waitForSelector(`tr[data-external-id="${stuckId}"]`);
    await page.locator(`tr[data-external-id="${stuckId}"] [data-testid="release"]`).click();
    await confirm();
    await expect.poll(() => page.locator('[data-testid="flash"]').textContent()).toContain(`Released ${stuckId}`);
    expect(await ctx.intakeGuard.store.find(new RequestKey('stripe', stuckId))).toMatchObject({
      status: 'failed',
      attempts: 2,
    });
    await shot('03-receipts-released');
    // The other tab still shows the old claim: its release is refused (the claim is no longer stale, attempt changed).
    await second.locator(`tr[data-external-id="${stuckId}"] [data-testid="release"]`).click();
    await second.locator('#confirm-dialog [data-testid="confirm"]').click();
    await expect.poll(() => second.locator('[data-testid="flash"]').textContent()).toContain('CLAIM_NOT_STALE');
    await second.screenshot({ path: join(OUT, '04-receipts-second-release-refused.png'), fullPage: true });
    await second.close();
    expect(await ctx.intakeGuard.store.find(new RequestKey('stripe', stuckId))).toMatchObject({
      status: 'failed',
      attempts: 2,
    });

    // 4. A dead job (its run was lost after the effect committed) is rerun once; no second fulfilment.
    const order = await db()
      .selectFrom('payonce_orders')
      .selectAll()
      .where('status', '=', 'completed')
      .orderBy('created_at')
      .executeTakeFirstOrThrow();
    const job = await db()
      .selectFrom('payonce_outbox')
      .selectAll()
      .where('dedupe_key', '=', `order:${order.id}`)
      .executeTakeFirstOrThrow();
    await db()
      .updateTable('payonce_outbox')
      .set({ status: 'dead', last_error: 'simulated: lease lost after the effect committed' })
      .where('id', '=', job.id)
      .execute();
    await go('#/jobs?status=dead', `tr[data-job-id="${job.id}"]`);
    await shot('05-jobs-dead');
    await page.locator(`tr[data-job-id="${job.id}"] [data-testid="rerun"]`).click();
    await confirm();
    await expect
      .poll(() => page.locator('[data-testid="flash"]').textContent())
      .toContain(`Job ${job.id} queued again`);
    await until(
      async () =>
        (await db().selectFrom('payonce_outbox').select('status').where('id', '=', job.id).executeTakeFirst())
          ?.status === 'done',
      10_000,
      'the rerun job to finish',
    );
    // no longer dead: nothing to rerun (the page refreshes its list after the action; wait for that render)
    await expect.poll(() => page.locator(`tr[data-job-id="${job.id}"]`).count()).toBe(0);
    expect(await count('payonce_service_fulfilments', sql`order_id = ${order.id}`)).toBe(1);
    const reruns = await db()
      .selectFrom('payonce_admin_actions')
      .selectAll()
      .where('action', '=', 'rerun-job')
      .execute();
    expect(reruns.map((r) => `${r.actor}:${r.outcome}:${r.target}`)).toEqual([`carol:done:job:${job.id}`]);

    // 5. A forgery about this order's payment is refused by the intake; the timeline leaves it out (issue 34 item 7).
    const attempt = await db()
      .selectFrom('payonce_payment_attempts')
      .selectAll()
      .where('id', '=', order.paid_attempt_id ?? '')
      .executeTakeFirstOrThrow();
    const forged = stripeIntentEvent({
      eventId: `evt_forged_${randomUUID().replace(/-/g, '')}`,
      type: 'payment_intent.succeeded',
      paymentId: attempt.provider_payment_id ?? '',
      merchantReference: attempt.id,
      amountMinor: 1,
      currency: 'EUR',
    });
    const t = Math.floor(Date.now() / 1000);
    const badSignature = createHmac('sha256', 'whsec_not_the_secret').update(`${t}.${forged}`).digest('hex');
    const refused = await deliver(url, 'stripe', forged, {
      'content-type': 'application/json',
      'stripe-signature': `t=${t},v1=${badSignature}`,
    });
    expect(refused.status).toBe(400); // Stripe's rejection status (docs/webhooks.md, "Rejection status per provider")
    await go(`#/orders/${order.id}`, '[data-testid="timeline"] li');
    const kinds = await page
      .locator('[data-testid="timeline"] li')
      .evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')));
    expect(kinds).toEqual(
      expect.arrayContaining([
        'order',
        'attempt',
        'provider-call',
        'delivery',
        'transition',
        'job',
        'effect',
        'action',
      ]),
    );
    const deliveries = await page.locator('[data-testid="timeline"] li[data-kind="delivery"]').allTextContents();
    expect(deliveries.some((text) => /signature signature_mismatch/.test(text))).toBe(false);
    expect(deliveries.some((text) => /payment_intent\.succeeded: new \/ completed → 200/.test(text))).toBe(true);
    expect(Number(await page.locator('[data-testid="timeline-fulfilments"]').textContent())).toBe(1);
    // A Stripe order has no Payme, Click or Uzum transactions; the order page says so.
    expect(await page.locator('[data-testid="order-provider-transactions"]').textContent()).toContain(
      'No Payme, Click or Uzum transactions',
    );
    await shot('06-order-timeline');

    // 6. Range replay: a dry run says what would happen (nothing sent), the run sends each event once.
    const eventKeys = await db()
      .selectFrom('payonce_webhook_deliveries')
      .select('event_key')
      .distinct()
      .where('event_type', '=', 'payment_intent.succeeded')
      .where('signature', '=', 'valid')
      .execute();
    const deliveriesBefore = await count('payonce_webhook_deliveries');
    await go('#/deliveries?eventType=payment_intent.succeeded', '[data-testid="deliveries-table"] tbody tr');
    await page.click('[data-testid="range-dry-run"]');
    await confirm();
    await page.waitForSelector('[data-testid="range-result"]');
    const dryVerdicts = await page
      .locator('[data-testid="range-result"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-verdict')));
    expect(dryVerdicts).toHaveLength(eventKeys.length);
    expect(new Set(dryVerdicts)).toEqual(new Set(['duplicate']));
    expect(await count('payonce_webhook_deliveries')).toBe(deliveriesBefore);
    await shot('07-deliveries-range-dry-run');
    await page.click('[data-testid="range-replay"]');
    await confirm();
    await expect
      .poll(() => page.locator('[data-testid="flash"]').textContent())
      .toContain(`Replay: ${eventKeys.length} considered`);
    const answers = await page.locator('[data-testid="range-result"] tbody tr td:nth-child(5)').allTextContents();
    expect(answers.every((a) => a.startsWith('200 duplicate/replayed'))).toBe(true);
    expect(await count('payonce_webhook_deliveries')).toBe(deliveriesBefore + eventKeys.length);
    expect(await count('payonce_service_fulfilments')).toBe(expected['orders-completed']);
    await shot('08-deliveries-range-replayed');

    // 7. The remaining pages render; the journal names the operator of every action.
    await go('#/attempts', '[data-testid="attempts-table"] tbody tr[data-attempt-id]');
    await shot('09-attempts');
    await go('#/orders', '[data-testid="orders-table"] tbody tr[data-order-id]');
    await shot('10-orders');
    await go('#/provider-transactions', '[data-testid="payme-transactions"]');
    await shot('10b-provider-transactions');
    await go('#/actions', '[data-testid="actions-table"] tbody tr[data-action]');
    const actions = await page
      .locator('[data-testid="actions-table"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    expect(actions).toEqual(['replay-range', 'replay-range', 'rerun-job', 'release-claim', 'release-claim']);
    await shot('11-actions');

    expect(consoleErrors).toEqual([]);
  }, 120_000);
});

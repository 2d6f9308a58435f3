import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStorm } from '../../packages/storm/src/run-storm.js';
import { stormHtmlReport } from '../../packages/storm/src/storm-html.js';
import type { StormReport } from '../../packages/storm/src/storm-report.js';
import { signatureCheckOff } from './faulty-services.js';
import { type StormWorld, startStormWorld } from './storm-harness.js';

const CHROMIUM = '/usr/bin/chromium';

/** The reference service with its signature check off (scenario 18 fails) and a sandbox with a 50 % fault rule. */
describe('storm report: timelines, seeded sandbox faults, the HTML report in Chromium', () => {
  let world: StormWorld;
  let dir: string;
  let browser: Browser;
  let failing: StormReport;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-storm-html-'));
    world = await startStormWorld(signatureCheckOff);
    world.sandbox.controls.addFaultRule({
      method: 'POST',
      path: '/v1/payment_intents',
      fault: 'delay=5',
      probability: 0.5,
    });
    if (!existsSync(CHROMIUM)) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await world?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const storm = (seed: number, only: number[]) =>
    runStorm({
      target: world.service.url,
      provider: world.sandbox.url,
      adminToken: world.adminToken,
      serviceControl: world.serviceControl,
      only,
      seed,
      concurrency: 1,
      timeoutMs: 15_000,
    });

  /** The faults the rule injected into each create request of a run, in order (`-`: none), and the fault log. */
  async function faultsOf(seed: number) {
    const fromSeq = world.sandbox.controls.faults().at(-1)?.seq ?? 0;
    const fromRequest = world.sandbox.controls.ledgerSnapshot().requests.length;
    const report = await storm(seed, [8, 9, 16, 17]);
    expect(report.sandboxSeed).toBeTypeOf('number');
    const creates = world.sandbox.controls
      .ledgerSnapshot()
      .requests.slice(fromRequest)
      .filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents')
      .map((r) => r.faults.filter((name) => !name.startsWith('plan:')).join('+') || '-');
    const log = world.sandbox.controls
      .faults()
      .filter((f) => f.seq > fromSeq && f.source.includes('rule:'))
      .map((f) => `${f.fault} ${f.method} ${f.path} ${f.source} ${f.detail}`);
    return { creates, log };
  }

  it('replays the sandbox’s injected faults for one seed and draws others for another', async () => {
    const first = await faultsOf(4242);
    const again = await faultsOf(4242);
    const other = await faultsOf(777);
    expect(first.creates).toHaveLength(4);
    expect(first.creates).toContain('delay=5');
    expect(first.log.length).toBeGreaterThan(0);
    expect(again).toEqual(first);
    expect(other.creates).toHaveLength(4);
    expect(other.creates).not.toEqual(first.creates);
    expect(other.log).not.toEqual(first.log);
  }, 180_000);

  it('records every order’s timeline in the JSON report: requests, provider calls, deliveries, changes', async () => {
    failing = await storm(99, [8, 18]);
    const [eight, eighteen] = failing.results;
    expect(eight?.verdict).toBe('pass');
    expect(eighteen?.verdict).toBe('fail');
    const order = eight?.orders[0]?.orderId;
    const events = (eight?.timeline ?? []).filter((e) => e.orderId === order);
    const kinds = events.map((e) => `${e.actor} ${e.what}`);
    expect(kinds).toContain('storm→app create order');
    expect(kinds).toContain('storm→app start payment');
    expect(kinds).toContain('app→provider POST /v1/payment_intents');
    expect(kinds.filter((k) => k.startsWith('provider→app webhook payment_intent.succeeded')).length).toBeGreaterThan(
      1,
    );
    expect(kinds).toContain('app paid transitions 1');
    expect(kinds).toContain('app fulfilments 1');
    expect(events.find((e) => e.what === 'start payment')?.idempotencyKey).toMatch(/^storm-/);
    expect(events.find((e) => e.actor === 'provider→app')).toMatchObject({ status: 200, attempt: 1 });
    expect(events.map((e) => e.atMs)).toEqual([...events.map((e) => e.atMs)].sort((a, b) => a - b));
    const forged = (eighteen?.timeline ?? []).find((e) => e.what.startsWith('webhook POST'));
    expect(forged?.orderId).toBe(eighteen?.orders[0]?.orderId);
    expect(JSON.stringify(failing)).not.toMatch(/whsec_|sk_test_/);
  }, 120_000);

  /** Opens `html` from a file in Chromium; returns the page, its console errors and every non-file request. */
  async function open(html: string, name: string) {
    const file = join(dir, name);
    await writeFile(file, html);
    const page = await browser.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith('file://')) requests.push(r.url());
    });
    await page.goto(pathToFileURL(file).href);
    return { page, errors, requests };
  }

  const inChromium = it.skipIf(!existsSync(CHROMIUM));

  inChromium(
    'the HTML report shows the table and the failed scenario’s order timeline, with no error and no request',
    async () => {
      const { page, errors, requests } = await open(stormHtmlReport([failing]), 'report.html');
      const rows = page.locator('table.scenarios tbody tr');
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(0).textContent()).toMatch(/^8\D.*PASS/s);
      expect(await rows.nth(1).textContent()).toMatch(/^18\D.*FAIL/s);
      const orderId = failing.results[1]?.orders[0]?.orderId ?? 'none';
      const order = page.locator(`details.scenario.fail details.order[data-order="${orderId}"]`);
      expect(await order.getAttribute('open')).not.toBeNull();
      const events = order.locator('tr.event');
      expect(await events.count()).toBeGreaterThan(2);
      expect(await events.first().isVisible()).toBe(true);
      expect(await order.textContent()).toMatch(/webhook POST \/webhooks\/stripe/);
      expect(await page.locator('details.scenario.pass').getAttribute('open')).toBeNull();
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      await page.close();
    },
    60_000,
  );

  inChromium(
    'escapes what it shows (an order id or a reason with markup does not run) and redacts secrets',
    async () => {
      const base = failing.results[1];
      if (base === undefined) throw new Error('no scenario 18 result');
      const evil = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>';
      const report: StormReport = {
        ...failing,
        target: `http://127.0.0.1/${evil}`,
        results: [
          {
            ...base,
            reasons: [`${evil} signed with whsec_abcdefghijklmnopqrstuvwx`],
            orders: [{ ...(base.orders[0] ?? { problems: [] }), orderId: evil, problems: [evil] } as never],
            timeline: [
              {
                atMs: failing.startedAtMs,
                orderId: evil,
                actor: 'storm→app',
                what: evil,
                status: 200,
                idempotencyKey: 'storm-pay-0001',
                attempt: null,
                faults: [],
                detail: 'Bearer sk_test_abcdef0123456789',
              },
            ],
          },
        ],
      };
      const html = stormHtmlReport([report]);
      expect(html).not.toMatch(/<script|<img/);
      expect(html).not.toMatch(/whsec_abc|sk_test_abc/);
      expect(html).toMatch(/storm-pay-0001/);
      const { page, errors, requests } = await open(html, 'evil.html');
      expect(await page.title()).toBe('payonce storm');
      expect(await page.locator('script, img').count()).toBe(0);
      expect(await page.locator('details.order').first().textContent()).toContain('<script>');
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      await page.close();
    },
    60_000,
  );
});

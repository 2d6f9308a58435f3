import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';

// Issue #34 item 13 in a real browser: a page of another origin tries what a malicious site would (no-cors text/plain
// fetches, a cross-site form POST, a CORS JSON POST). None may settle a payment or move the sandbox clock.
const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))('sandbox controls against a cross-site page in Chromium', () => {
  let sandbox: Sandbox;
  let page: Server;
  let pageUrl = '';
  let browser: Browser;

  beforeAll(async () => {
    sandbox = await createSandbox({ timeScale: 0.001 });
    // The other site's page: a form that POSTs text/plain JSON to the clock control into a hidden frame.
    page = createServer((request, response) => {
      const target = new URL(request.url ?? '/', 'http://x').searchParams.get('target') ?? '';
      response.writeHead(200, { 'content-type': 'text/html' }).end(
        `<!doctype html><title>other site</title><iframe name="sink"></iframe>
<form id="f" method="POST" enctype="text/plain" target="sink" action="${target}/_sandbox/clock">
<input name='{"advanceMs":86400000,"x":"' value='"}'></form>`,
      );
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => page?.close(resolve));
    await sandbox?.close();
  });

  it('no cross-site request settles a payment, moves the clock or reads the secret', async () => {
    const created = await fetch(`${sandbox.url}/v1/payment_intents`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk_test_browser',
        'content-type': 'application/x-www-form-urlencoded',
        'payonce-fault': 'hold',
      },
      body: 'amount=1500&currency=usd&payment_method=pm_card_visa&confirm=true',
    });
    const { id } = (await created.json()) as { id: string };
    expect(sandbox.controls.payment(id)?.status).toBe('processing');
    const clockBefore = sandbox.controls.nowMs();

    const tab = await browser.newPage();
    await tab.goto(`${pageUrl}?target=${encodeURIComponent(sandbox.url)}`);
    const framed = tab.waitForEvent('framenavigated', { timeout: 10_000 }).catch(() => null);
    await tab.evaluate(() => (globalThis as unknown as { f: { submit(): void } }).f.submit());
    await framed;
    const outcome = await tab.evaluate(
      async ({ target, paymentId }) => {
        const tries: string[] = [];
        const attempt = async (what: string, run: () => Promise<Response>) => {
          try {
            const response = await run();
            tries.push(`${what}: ${response.type} ${response.status}`);
            return response;
          } catch (error) {
            tries.push(`${what}: ${(error as Error).name}`);
            return null;
          }
        };
        const settle = `${target}/_sandbox/payments/${paymentId}/settle`;
        await attempt('text/plain settle', () =>
          fetch(settle, { method: 'POST', mode: 'no-cors', body: '{"outcome":"succeed"}' }),
        );
        await attempt('no-type clock', () => fetch(`${target}/_sandbox/clock`, { method: 'POST', mode: 'no-cors' }));
        await attempt('cors json settle', () =>
          fetch(settle, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
        );
        const read = await attempt('read signing', () => fetch(`${target}/_sandbox/signing`));
        return { tries, readable: read !== null && read.type !== 'opaque' };
      },
      { target: sandbox.url, paymentId: id },
    );
    await tab.close();

    expect(outcome.readable, outcome.tries.join('; ')).toBe(false);
    expect(sandbox.controls.payment(id)?.status, outcome.tries.join('; ')).toBe('processing');
    expect(sandbox.controls.nowMs() - clockBefore).toBeLessThan(3_600_000);
    const settledBy = sandbox.controls.events({ paymentId: id }).map((e) => e.type);
    expect(settledBy).not.toContain('payment_intent.succeeded');
  }, 60_000);
});

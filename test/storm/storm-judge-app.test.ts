import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import { runStorm } from '../../packages/storm/src/run-storm.js';
import type { StormReport } from '../../packages/storm/src/storm-report.js';
import { type MiniShopFaults, startMiniShop } from './mini-shop.js';

/** Scenarios the mini shop can express (no signature check, no attempts view): 3, 7 and 8. */
const ONLY = [3, 7, 8];

/** What did not pass, one line per scenario, with its reasons. */
const notPassed = (report: StormReport) =>
  report.results.filter((r) => r.verdict !== 'pass').map((r) => `${r.id} ${r.verdict}: ${r.reasons.join('; ')}`);

describe('the storm judges what an app charged and that it charged at all (a mini shop through its adapter)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ timeScale: 0.001, serveSecrets: true });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  async function storm(faults: MiniShopFaults, only = ONLY): Promise<StormReport> {
    const shop = await startMiniShop(sandbox.url, faults);
    sandbox.controls.setWebhookUrl(shop.adapter.webhookUrl('stripe'));
    try {
      return await runStorm({ app: shop.adapter, provider: sandbox.url, only, timeoutMs: 3_000 });
    } finally {
      await shop.close();
    }
  }

  it('passes a shop that charges each order its amount once', async () => {
    const report = await storm({});
    expect(notPassed(report)).toEqual([]);
    for (const result of report.results) {
      for (const order of result.orders) expect(order, `scenario ${result.id}`).toMatchObject({ charges: 1 });
    }
  }, 30_000);

  // Found by an attacker: an app charging 100x the order's amount passed every Stripe scenario.
  it('fails every scenario of a shop that charges 100 times the order amount, naming both amounts', async () => {
    const report = await storm({ chargeFactor: 100 });
    expect(report.results.map((r) => r.verdict)).toEqual(['fail', 'fail', 'fail']);
    for (const result of report.results) {
      expect(result.reasons.join('\n'), `scenario ${result.id}`).toMatch(
        /was charged (\d+)00 EUR \(payment pi_\w+\) but the order is \1 EUR \(minor units\)/,
      );
    }
  }, 30_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import { withStringIds } from '../../packages/storm/src/app/adapter-ids.js';
import type { StormAppAdapter } from '../../packages/storm/src/app/storm-app-adapter.js';
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

  async function storm(
    faults: MiniShopFaults,
    only = ONLY,
    wrap = (app: StormAppAdapter) => app,
  ): Promise<StormReport> {
    const shop = await startMiniShop(sandbox.url, faults);
    sandbox.controls.setWebhookUrl(shop.adapter.webhookUrl('stripe'));
    try {
      return await runStorm({ app: wrap(shop.adapter), provider: sandbox.url, only, timeoutMs: 3_000 });
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

  // Found by an attacker: numeric order ids failed every scenario with `out.replace is not a function`.
  it('passes a shop whose order ids are numbers once its adapter goes through withStringIds', async () => {
    const report = await storm({ numericIds: true }, ONLY, withStringIds);
    expect(notPassed(report)).toEqual([]);
    expect(report.results.flatMap((r) => r.orders.map((o) => typeof o.orderId))).toEqual([
      'string',
      'string',
      'string',
    ]);
  }, 30_000);

  // Found by an attacker: an app answering "201 created pending" without calling the provider passed 3 and 7 with 0
  // charges, although 3's criterion says the order is then paid once.
  it('fails the scenarios whose criterion says the order ends paid when the shop never calls the provider', async () => {
    const report = await storm({ skipProvider: true }, [3, 7]);
    expect(report.results.map((r) => r.verdict)).toEqual(['fail', 'fail']);
    for (const result of report.results) {
      expect(result.counts.charges, `scenario ${result.id}`).toBe(0);
      expect(result.reasons.join('\n'), `scenario ${result.id}`).toMatch(
        /order \d+ was not paid, though the criterion says it ends paid: the provider charged it 0 time\(s\); the app shows it awaiting_payment with 0 paid transition\(s\) and 0 fulfilment\(s\)/,
      );
    }
  }, 30_000);
});

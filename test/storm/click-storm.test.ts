import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import {
  type ClickStormReport,
  type ClosableClickTarget,
  clickStormSummary,
  formatClickStormTable,
  runClickStorm,
  serviceClickTarget,
} from '../../packages/storm/src/click/index.js';
import { SECRET, SERVICE_ID } from '../providers/click/click-fixtures.js';
import { type LocalService, startLocalService } from '../service/local-provider-harness.js';
import { type ShipEveryAnswer, shipEveryAnswer } from './ship-every-answer.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};
const ADMIN_TOKEN = randomBytes(32).toString('hex');
const verdicts = (report: ClickStormReport) => Object.fromEntries(report.results.map((r) => [r.id, r.verdict]));

/**
 * The Click storm against the reference service (`createService` with Click's service id and SECRET_KEY, SQLite)
 * through `serviceClickTarget`: every scenario but the crash (8 needs a `payonce serve` child to SIGKILL), then a
 * shop that ships on every Complete answered 0, which the storm must catch.
 */
describe('Click storm against the reference service on SQLite', () => {
  let local: LocalService;
  let target: ClosableClickTarget;
  let broken: ShipEveryAnswer | undefined;
  beforeAll(async () => {
    local = await startLocalService({ clickServiceId: SERVICE_ID, clickSecretKey: SECRET, adminToken: ADMIN_TOKEN });
    target = serviceClickTarget({
      service: local.url,
      serviceId: SERVICE_ID,
      secretKey: SECRET,
      adminToken: ADMIN_TOKEN,
    });
  });
  afterAll(async () => {
    await broken?.close();
    await target?.close();
    await local?.close();
  });

  it('passes every scenario but the crash: one complete, one paid transition, one fulfilment per paid order', async () => {
    const report = await runClickStorm({ target, only: [1, 2, 3, 4, 5, 6, 7, 9, 10], timeoutMs: 20_000 });
    const table = formatClickStormTable(report);
    expect(report.passed, table).toBe(true);
    expect(Object.values(verdicts(report)), table).toEqual(Array(9).fill('pass'));
    for (const order of report.results.flatMap((r) => r.orders)) {
      expect(order.completes, table).toBeLessThanOrEqual(1);
      expect([order.paidTransitions, order.fulfilments, order.merchantTiyin], table).toEqual([
        order.completes,
        order.completes,
        order.payerTiyin,
      ]);
    }
    const byId = new Map(report.results.map((r) => [r.id, r]));
    expect(byId.get(2)?.counts).toMatchObject({ completes: 1, paidTransitions: 1, fulfilments: 1 });
    expect(byId.get(6)?.counts).toMatchObject({ completes: 1, paidTransitions: 1, fulfilments: 1 });
    expect(byId.get(10)?.notes.join(' ')).toMatch(/rerun of the done fulfilment job: 409 JOB_NOT_DEAD/);
    expect(clickStormSummary(report)).toMatch(/^PASS: 9\/9 Click scenarios/);
    expect(table).not.toContain(SECRET);
  });

  it('fails the repeat scenarios of a shop that ships on every Complete answered 0', async () => {
    broken = await shipEveryAnswer(local.url, 'click');
    const report = await runClickStorm({
      target: { ...target, ...broken.clickUrls, readOrder: broken.readOrder(target.readOrder) },
      only: [4, 7],
      timeoutMs: 10_000,
    });
    expect(verdicts(report)).toEqual({ 4: 'fail', 7: 'pass' });
    expect(formatClickStormTable(report)).toMatch(/FAIL 4: .*fulfilled 4 times/);
  });
  it('fails, after the run, a shop that ships again in the background after the scenario concluded', async () => {
    // The shop answers Click and ships once; once both scenarios concluded it ships every order again (a background
    // job): the conclusions saw one shipment, the look after the run sees two.
    let concluded = 0;
    const readOrder: typeof target.readOrder = async (merchantTransId) => {
      const counts = await target.readOrder(merchantTransId);
      const late = concluded === 2 && counts.fulfilments === 1 ? 1 : 0;
      return { ...counts, fulfilments: counts.fulfilments + late };
    };
    const report = await runClickStorm({
      target: { ...target, readOrder },
      only: [2, 6],
      timeoutMs: 10_000,
      onProgress: (event) => {
        if (event.kind === 'finished') concluded += 1;
      },
    });
    expect(verdicts(report)).toEqual({ 2: 'fail', 6: 'fail' });
    const reasons = report.results.flatMap((r) => r.reasons).join('\n');
    expect(reasons).toMatch(
      /after the run: order .*fulfilled 2 times.*\(the effect came after the scenario concluded\)/,
    );
    expect(report.results.map((r) => r.counts.fulfilments)).toEqual([2, 2]);
  });

  it('fails, after the run, a shop whose order read breaks on the second shipment (it cannot be read again)', async () => {
    // As above, but the shop's read throws once an order has two shipments (a find-unique on the shipment row):
    // the look after the run cannot read the order, and that must not keep the first judgement.
    let concluded = 0;
    const readOrder: typeof target.readOrder = async (merchantTransId) => {
      const counts = await target.readOrder(merchantTransId);
      const fulfilments = counts.fulfilments + (concluded === 2 && counts.fulfilments === 1 ? 1 : 0);
      if (fulfilments > 1) throw new Error(`expected one shipment of ${merchantTransId}, found ${fulfilments}`);
      return { ...counts, fulfilments };
    };
    const report = await runClickStorm({
      target: { ...target, readOrder },
      only: [2, 6],
      timeoutMs: 10_000,
      settleMs: 0,
      onProgress: (event) => {
        if (event.kind === 'finished') concluded += 1;
      },
    });
    expect(verdicts(report)).toEqual({ 2: 'fail', 6: 'fail' });
    expect(report.passed).toBe(false);
    expect(report.results.flatMap((r) => r.reasons).join('\n')).toMatch(
      /after the run: order .*could not report the order \(.*found 2\)/,
    );
  });

  it('payonce storm --provider click: exit 0 with the table, 1 when the credentials are refused, 2 without them', async () => {
    const io = capture();
    const base = ['storm', '--provider', 'click', '--target', local.url];
    expect(
      await runCli(
        [...base, '--click-service-id', String(SERVICE_ID), '--click-secret-key', SECRET, '--only', '2,6'],
        io,
      ),
    ).toBe(0);
    const text = io.lines.join('\n');
    expect(text).toMatch(/running 2 Click scenarios, 2 at a time/);
    expect(text).toMatch(/PASS: 2\/2 Click scenarios/);
    const wrong = capture();
    expect(
      await runCli(
        [...base, '--click-service-id', String(SERVICE_ID), '--click-secret-key', `${SECRET}-not-it`],
        wrong,
      ),
    ).toBe(1);
    expect(wrong.lines.join('\n')).toMatch(/refused the signature \(-1\)/);
    const none = capture();
    expect(await runCli(base, none)).toBe(2);
    expect(none.lines.join('\n')).toMatch(/--provider click needs --click-service-id and --click-secret-key/);
  });
});

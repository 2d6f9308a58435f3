import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import {
  type ClosableUzumTarget,
  formatUzumStormTable,
  runUzumStorm,
  serviceUzumTarget,
  type UzumStormReport,
  uzumStormSummary,
} from '../../packages/storm/src/uzum/index.js';
import { AUTH, SERVICE_ID } from '../providers/uzum/uzum-fixtures.js';
import { type LocalService, startLocalService } from '../service/local-provider-harness.js';
import { type ShipEveryAnswer, shipEveryAnswer } from './ship-every-answer.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};
const ADMIN_TOKEN = randomBytes(32).toString('hex');
const verdicts = (report: UzumStormReport) => Object.fromEntries(report.results.map((r) => [r.id, r.verdict]));

/**
 * The Uzum storm against the reference service (`createService` with Uzum's login, password and service id,
 * SQLite) through `serviceUzumTarget`: every scenario but the crash (8 needs a `payonce serve` child to SIGKILL),
 * then a shop that ships on every /confirm answered CONFIRMED, which the storm must catch.
 */
describe('Uzum storm against the reference service on SQLite', () => {
  let local: LocalService;
  let target: ClosableUzumTarget;
  let broken: ShipEveryAnswer | undefined;
  const credentials = { login: AUTH.login, password: AUTH.password, serviceId: SERVICE_ID };
  beforeAll(async () => {
    local = await startLocalService({
      uzumLogin: AUTH.login,
      uzumPassword: AUTH.password,
      uzumServiceId: SERVICE_ID,
      adminToken: ADMIN_TOKEN,
    });
    target = serviceUzumTarget({ service: local.url, ...credentials, adminToken: ADMIN_TOKEN });
  });
  afterAll(async () => {
    await broken?.close();
    await target?.close();
    await local?.close();
  });

  it('passes every scenario but the crash: one confirm, one paid transition, one fulfilment per paid order', async () => {
    const report = await runUzumStorm({ target, only: [1, 2, 3, 4, 5, 6, 7, 9, 10], timeoutMs: 20_000 });
    const table = formatUzumStormTable(report);
    expect(report.passed, table).toBe(true);
    expect(Object.values(verdicts(report)), table).toEqual(Array(9).fill('pass'));
    for (const order of report.results.flatMap((r) => r.orders)) {
      expect(order.confirms, table).toBeLessThanOrEqual(1);
      expect(order.merchantTiyin, table).toBe(order.payerTiyin);
      expect([order.paidTransitions, order.fulfilments], table).toEqual([order.confirms, order.confirms]);
    }
    const byId = new Map(report.results.map((r) => [r.id, r]));
    expect(byId.get(2)?.counts).toMatchObject({ confirms: 1, paidTransitions: 1, fulfilments: 1 });
    expect(byId.get(6)?.counts).toMatchObject({ confirms: 0, paidTransitions: 0, fulfilments: 0 });
    expect(byId.get(9)?.orders[1]).toMatchObject({ refunds: 1, targetRefunds: 1, payerTiyin: 0, merchantTiyin: 0 });
    expect(byId.get(10)?.notes.join(' ')).toMatch(/rerun of the done fulfilment job: 409 JOB_NOT_DEAD/);
    expect(uzumStormSummary(report)).toMatch(/^PASS: 9\/9 Uzum scenarios/);
    expect(table).not.toContain(AUTH.password);
  });

  it('fails the repeat scenarios of a shop that ships on every /confirm answered CONFIRMED', async () => {
    broken = await shipEveryAnswer(local.url, 'uzum');
    const report = await runUzumStorm({
      target: { ...target, merchantUrl: broken.uzumUrl, readOrder: broken.readOrder(target.readOrder) },
      only: [4, 7],
      timeoutMs: 10_000,
    });
    expect(verdicts(report)).toEqual({ 4: 'fail', 7: 'pass' });
    expect(formatUzumStormTable(report)).toMatch(/FAIL 4: .*fulfilled 4 times/);
  });
  it('payonce storm --provider uzum: exit 0 with the table, 1 when the credentials are refused, 2 without them', async () => {
    const io = capture();
    const base = ['storm', '--provider', 'uzum', '--target', local.url];
    expect(
      await runCli(
        [
          ...base,
          '--uzum-login',
          AUTH.login,
          '--uzum-password',
          AUTH.password,
          '--uzum-service-id',
          String(SERVICE_ID),
          '--only',
          '2,6',
        ],
        io,
      ),
    ).toBe(0);
    const text = io.lines.join('\n');
    expect(text).toMatch(/running 2 Uzum scenarios, 2 at a time/);
    expect(text).toMatch(/PASS: 2\/2 Uzum scenarios/);
    const wrong = capture();
    expect(
      await runCli(
        [
          ...base,
          '--uzum-login',
          AUTH.login,
          '--uzum-password',
          `${AUTH.password}-not-it`,
          '--uzum-service-id',
          String(SERVICE_ID),
        ],
        wrong,
      ),
    ).toBe(1);
    expect(wrong.lines.join('\n')).toMatch(/refused the credentials \(10001\)/);
    const none = capture();
    expect(await runCli(base, none)).toBe(2);
    expect(none.lines.join('\n')).toMatch(/--provider uzum needs --uzum-login, --uzum-password and --uzum-service-id/);
  });
});

import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { findFreePort } from '../../packages/cli/src/demo/free-port.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { createTelegramSandbox, type TelegramSandbox } from '../../packages/sandbox/src/telegram/telegram-sandbox.js';
import {
  type ClosableTelegramTarget,
  formatTelegramStormTable,
  judgeTelegramOrder,
  runTelegramStorm,
  serviceTelegramTarget,
  type TelegramStormReport,
  telegramStormSummary,
} from '../../packages/storm/src/telegram/index.js';
import { type LocalService, startLocalService } from '../service/local-provider-harness.js';

const TOKEN = '123456:SANDBOX-telegram-storm-token';
const SECRET = 'telegram_storm_secret';
const ADMIN_TOKEN = randomBytes(32).toString('hex');
const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};
const verdicts = (report: TelegramStormReport) => Object.fromEntries(report.results.map((r) => [r.id, r.verdict]));

/**
 * The Telegram storm against the reference service (`createService` with a bot token, secret token and the
 * sandbox's Bot API URL, SQLite) through `serviceTelegramTarget`: every scenario but the crash (8 needs a
 * `payonce serve` child to SIGKILL).
 */
describe('Telegram storm against the reference service on SQLite', () => {
  let sandbox: TelegramSandbox;
  let local: LocalService;
  let target: ClosableTelegramTarget;
  beforeAll(async () => {
    sandbox = await createTelegramSandbox({ token: TOKEN });
    local = await startLocalService({
      telegramBotToken: TOKEN,
      telegramSecretToken: SECRET,
      telegramApiUrl: sandbox.url,
      adminToken: ADMIN_TOKEN,
    });
    target = serviceTelegramTarget({ service: local.url, secretToken: SECRET, adminToken: ADMIN_TOKEN });
  });
  // Closing waits for the service's requests and jobs in flight: on a loaded host that can outlast the default 30 s.
  afterAll(async () => {
    await target?.close();
    await local?.close();
    await sandbox?.close();
  }, 90_000);

  it('passes every scenario but the crash: one charge, one paid transition, one fulfilment per paid order', async () => {
    const report = await runTelegramStorm({ target, sandbox, only: [1, 2, 3, 4, 5, 6, 7], timeoutMs: 20_000 });
    const table = formatTelegramStormTable(report);
    expect(report.passed, table).toBe(true);
    expect(Object.values(verdicts(report)), table).toEqual(Array(7).fill('pass'));
    for (const order of report.results.flatMap((r) => r.orders)) {
      expect(order.charges, table).toBeLessThanOrEqual(1);
      expect(order.merchantStars, table).toBe(order.payerStars);
      expect([order.paidTransitions, order.fulfilments], table).toEqual([order.charges, order.charges]);
    }
    const byId = new Map(report.results.map((r) => [r.id, r]));
    expect(byId.get(1)?.counts).toMatchObject({ charges: 1, paidTransitions: 1, fulfilments: 1 });
    expect(byId.get(1)?.notes.join(' ')).toMatch(/copies answered (200|409)( (200|409)){19}/);
    expect(byId.get(2)?.notes.join(' ')).toMatch(/first deliveries answered 401 401/);
    expect(byId.get(3)?.notes.join(' ')).toMatch(/second payment: refused/);
    expect(byId.get(6)?.orders[0]).toMatchObject({ refunds: 1, targetRefunds: 1, payerStars: 0, merchantStars: 0 });
    expect(byId.get(7)?.notes.join(' ')).toMatch(/rerun of the done fulfilment job: 409 JOB_NOT_DEAD/);
    expect(telegramStormSummary(report)).toMatch(/^PASS: 7\/7 Telegram scenarios/);
    expect(table).not.toContain(SECRET);
    expect(table).not.toContain(TOKEN.split(':')[1]);
  });

  it('the judge fails an order paid twice, paid without a charge, or holding other stars than the ledger', () => {
    const payment = {
      kind: 'payment',
      chargeId: 'stx1',
      userId: 7,
      payload: 'o1',
      currency: 'XTR',
      amount: 5,
    } as const;
    const held = (paidTransitions: number, fulfilments: number, heldTiyin: number) => ({
      counts: { paidTransitions, fulfilments, refunds: 0, heldTiyin },
      countsError: null,
      timedOut: false,
    });
    expect(judgeTelegramOrder({ orderId: 'o1', movements: [payment], ...held(1, 1, 5) }).problems).toEqual([]);
    expect(judgeTelegramOrder({ orderId: 'o1', movements: [payment], ...held(2, 2, 5) }).problems.join()).toMatch(
      /moved to paid 2 times.*fulfilled 2 times/,
    );
    expect(judgeTelegramOrder({ orderId: 'o1', movements: [], ...held(1, 1, 5) }).problems.join()).toMatch(
      /never charged/,
    );
    const twice = [payment, { ...payment, chargeId: 'stx2' }];
    expect(judgeTelegramOrder({ orderId: 'o1', movements: twice, ...held(1, 1, 5) }).problems.join()).toMatch(
      /charged the buyer 2 times.*10 stars but the merchant holds 5/,
    );
  });

  it('without a refund route or a supervisor the scenarios are skipped with the reason, never passed', async () => {
    const { requestRefund: _refund, ...noRefund } = target;
    const report = await runTelegramStorm({
      target: { ...noRefund, missing: { refund: 'the bot has no refund route' } },
      sandbox,
      only: [6],
      timeoutMs: 5_000,
    });
    expect(verdicts(report)).toEqual({ 6: 'skip' });
    expect(formatTelegramStormTable(report)).toMatch(/the bot has no refund route/);
  });
});

describe('payonce storm --provider telegram (in-process CLI, SQLite)', () => {
  let local: LocalService;
  let apiUrl: string;
  beforeAll(async () => {
    apiUrl = `http://127.0.0.1:${await findFreePort()}`;
    // The service calls the Bot API where the storm's sandbox will listen (the command starts it there).
    local = await startLocalService({ telegramBotToken: TOKEN, telegramSecretToken: SECRET, telegramApiUrl: apiUrl });
  });
  afterAll(async () => {
    await local?.close();
  });

  it('exit 0 with the table and --html/--junit, 1 when the secret token is refused, 2 without the tokens; the tokens never printed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payonce-telegram-storm-cli-'));
    const [html, junit] = [join(dir, 'telegram.html'), join(dir, 'telegram.xml')];
    const saved = ['PAYONCE_TELEGRAM_BOT_TOKEN', 'PAYONCE_TELEGRAM_SECRET_TOKEN', 'PAYONCE_TELEGRAM_API_URL'].map(
      (name) => [name, process.env[name]] as const,
    );
    for (const [name] of saved) delete process.env[name];
    try {
      const base = ['storm', '--provider', 'telegram', '--target', local.url, '--telegram-api-url', apiUrl];
      const io = capture();
      const args = [...base, '--telegram-bot-token', TOKEN, '--only', '1,4', '--html', html, '--junit', junit];
      expect(await runCli([...args, '--telegram-secret-token', SECRET], io)).toBe(0);
      const text = io.lines.join('\n');
      expect(text).toMatch(/PASS: 2\/2 Telegram scenarios/);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(TOKEN.split(':')[1]);
      // The service target's reports: every scenario passed, each order's timeline, no token or secret.
      const page = await readFile(html, 'utf8');
      expect(page).toMatch(/<h1>payonce storm --provider telegram: <span class="v-pass">passed<\/span><\/h1>/);
      expect(page.match(/<tr class="pass" data-scenario="\d+">/g)).toHaveLength(2);
      expect(page).toMatch(/<td>webhook successful_payment<\/td><td>200<\/td>/);
      expect(page).not.toContain(SECRET);
      expect(page).not.toContain(TOKEN.split(':')[1]);
      expect(await readFile(junit, 'utf8')).toMatch(
        /<testsuite name="payonce storm --provider telegram" tests="2" failures="0" errors="0" skipped="0"/,
      );
      const wrong = capture();
      expect(await runCli([...args, '--telegram-secret-token', 'not_the_secret'], wrong)).toBe(1);
      expect(wrong.lines.join('\n')).toMatch(/refused the secret token \(401\)/);
      expect(await readFile(junit, 'utf8')).toMatch(
        /<testcase [^>]*name="preflight"[^>]*>\s*<error message="[^"]*refused the secret token/,
      );
      const none = capture();
      expect(await runCli(base, none)).toBe(2);
      expect(none.lines.join('\n')).toMatch(/--provider telegram needs --telegram-bot-token/);
    } finally {
      for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
      await rm(dir, { recursive: true, force: true });
    }
  });
});

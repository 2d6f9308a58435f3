import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { formatAcceptanceReport } from '../../packages/sandbox/src/acceptance/acceptance-report.js';
import { runUzumAcceptance } from '../../packages/sandbox/src/uzum/uzum-acceptance.js';
import { UZUM_CODES, UZUM_STATUS_ATTEMPTS } from '../../packages/sandbox/src/uzum/uzum-codes.js';
import { PAYME_BACKENDS } from '../providers/payme/payme-stores.js';
import { AMOUNT, AUTH, PROTOCOL, SERVICE_ID } from '../providers/uzum/uzum-fixtures.js';
import type { UzumBench } from '../providers/uzum/uzum-harness.js';
import { closedUrl, serveHtmlPage } from './payme-merchant-app.js';
import { recodeUzum, type ServedUzum, serveUzum, staleUzumReplay, uzumBenchOn } from './uzum-merchant-app.js';

/** The server backends of `PAYME_BACKENDS`; the SQLite battery runs in the first block. */
const SERVER_BACKENDS = PAYME_BACKENDS.filter((backend) => backend !== 'sqlite');

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

describe('Uzum sandbox codes', () => {
  it('are codes the fixtures record, with their meaning (uzum/protocol.json)', () => {
    const meaning = (code: string) => (PROTOCOL.error_codes[code]?.meaning ?? '').toLowerCase();
    for (const code of Object.values(UZUM_CODES)) expect(meaning(code), code).not.toBe('');
    expect(meaning(UZUM_CODES.accessDenied)).toMatch(/authorization/);
    expect(meaning(UZUM_CODES.transactionNotFound)).toMatch(/not found/);
    expect(meaning(UZUM_CODES.transactionCancelled)).toMatch(/reversed/);
    expect(meaning(UZUM_CODES.alreadyConfirmed)).toMatch(/already confirmed/);
    expect(UZUM_STATUS_ATTEMPTS).toBe(10);
  });
});

/** The battery against payonce's Uzum engine (SQLite, Express), against broken merchants, and through the CLI. */
describe('Uzum acceptance battery', () => {
  let bench: UzumBench;
  let drop: () => Promise<void>;
  const apps: ServedUzum[] = [];
  const orders = () => ({ params: bench.addOrder(AMOUNT).params, amountTiyin: AMOUNT });
  const serve = async (...args: Parameters<typeof serveUzum>) => {
    const app = await serveUzum(...args);
    apps.push(app);
    return app;
  };
  const target = (app: ServedUzum) => ({
    merchantUrl: app.url,
    login: AUTH.login,
    password: AUTH.password,
    serviceId: SERVICE_ID,
  });

  beforeAll(async () => {
    ({ bench, drop } = await uzumBenchOn());
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await drop?.();
  });

  it('passes every check against createUzumMerchant behind Express, with one fulfilment for the confirmed order', async () => {
    const report = await runUzumAcceptance({ ...target(await serve(bench.merchant)), orders });
    expect(
      report.checks.filter((c) => !c.passed),
      formatAcceptanceReport(report).join('\n'),
    ).toEqual([]);
    expect(report.checks.map((c) => c.name)).toEqual([
      'credentials: a wrong password',
      'credentials: no Authorization header',
      '/check: wrong serviceId',
      '/check: unknown order',
      '/create: wrong amount',
      '/status: unknown transId',
      '/check: payable order',
      '/create',
      '/create repeated',
      '/status after create',
      '/confirm',
      '/confirm repeated',
      '/status after confirm',
      '/confirm before /create (out of order)',
      '/create (second order)',
      '/reverse',
      '/reverse repeated',
      '/confirm after /reverse',
      '/status after reverse',
    ]);
    const sent = report.checks.flatMap((c) => c.exchanges.map((e) => `${e.auth} ${e.body}`)).join('\n');
    expect(sent).not.toContain(AUTH.password);
    expect(await bench.fulfilments(report.transactionIds[0] as string)).toBe(1);
    expect(await bench.fulfilments(report.transactionIds[1] as string)).toBe(0);
  });

  it('fails, naming the checks, against a merchant replaying its first successful answer per transId', async () => {
    const report = await runUzumAcceptance({ ...target(await serve(bench.merchant, staleUzumReplay())), orders });
    // The first /status of each transaction is answered afresh; the second replays "CREATED" after the confirm.
    expect(report.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual(['/status after confirm']);
    expect(formatAcceptanceReport(report).join('\n')).toMatch(/FAIL 13\. \/status after confirm/);
  });

  /** Runs the battery against `merchantUrl` expecting it to stop before its first check with `line` (`at`: /check's URL). */
  const stopsBeforeAnyCheck = async (merchantUrl: string, line: string, password = AUTH.password) => {
    const report = await runUzumAcceptance({
      ...target({ url: merchantUrl, close: async () => {} }),
      password,
      orders,
    });
    expect(report.stopped).toBe(line);
    expect(report.passed).toBe(false);
    expect(report.checks).toEqual([]);
    expect(formatAcceptanceReport(report)).toEqual([`stopped: ${line}`]);
  };

  it('stops before any check when nothing listens, naming the connection error', async () => {
    const url = await closedUrl('/uzum');
    await stopsBeforeAnyCheck(url, `cannot connect to ${url}/check: ECONNREFUSED`);
  });

  it("stops before any check under a URL that is not the webhooks' (HTTP 404)", async () => {
    const url = `${(await serve(bench.merchant)).url}-wrong`;
    await stopsBeforeAnyCheck(url, `HTTP 404 at ${url}/check (not the endpoint's path?)`);
  });

  it('stops before any check when the URL answers an HTML page', async () => {
    const page = await serveHtmlPage();
    apps.push(page);
    await stopsBeforeAnyCheck(page.url, `HTML answer, not JSON, from ${page.url}check (HTTP 200)`);
  });

  it('stops before any check when the merchant refuses the configured credentials (10001)', async () => {
    const app = await serve(bench.merchant);
    const line = `the configured key/credentials were refused (${UZUM_CODES.accessDenied}): check --login and --password`;
    await stopsBeforeAnyCheck(app.url, line, `${AUTH.password}-other`);
  });

  it('stops at the first /create of the order when its own amount is refused (10011): amounts given in sum', async () => {
    const app = await serve(bench.merchant);
    const inSum = () => ({ params: bench.addOrder(AMOUNT).params, amountTiyin: AMOUNT / 100 });
    const report = await runUzumAcceptance({ ...target(app), orders: inSum });
    const line = `the order's own amount (${AMOUNT / 100} tiyin) was refused as a wrong amount (${UZUM_CODES.invalidAmount}): amounts are in tiyin (1 sum = 100 tiyin)`;
    expect(report.stopped).toBe(line);
    expect(report.passed).toBe(false);
    // The checks before it ran and report as usual; none after it ran.
    expect(report.checks.map((c) => c.name).slice(-2)).toEqual(['/check: payable order', '/create']);
    expect(report.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual(['/create']);
    expect(formatAcceptanceReport(report).join('\n')).toContain(`stopped: ${line}`);
  });

  it('payonce sandbox uzum: --check exits 0, 1 against a wrong-code merchant, 2 for usage errors; pays with faults', async () => {
    const good = await serve(bench.merchant);
    const bad = await serve(bench.merchant, recodeUzum(UZUM_CODES.transactionCancelled, UZUM_CODES.alreadyPaid));
    const field = Object.keys(orders().params)[0] as string;
    const list = () => [orders(), orders()].map((o) => `${o.params[field]}:${o.amountTiyin}`).join(',');
    const creds = ['--login', AUTH.login, '--password', AUTH.password, '--service-id', String(SERVICE_ID)];
    const args = (flag: string, app: ServedUzum) => [
      'sandbox',
      'uzum',
      flag,
      app.url,
      ...creds,
      '--param-field',
      field,
    ];
    let io = capture();
    expect(await runCli([...args('--check', good), '--orders', list()], io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(/all 19 checks passed/);
    expect(io.lines.join('\n')).not.toContain(AUTH.password);
    io = capture();
    expect(await runCli([...args('--check', bad), '--orders', list()], io)).toBe(1);
    expect(io.lines.join('\n')).toMatch(/FAIL +\/confirm after \/reverse/);
    io = capture();
    const pay = [...args('--merchant-url', good), '--orders', list(), '--count', '2', '--inject', 'lost-answer'];
    expect(await runCli(pay, io)).toBe(0);
    expect(io.lines.filter((l) => l.endsWith(' confirmed'))).toHaveLength(2);
    expect(io.lines.join('\n')).toMatch(new RegExp(`moved ${2 * AMOUNT} tiyin`));
    io = capture();
    expect(await runCli(['sandbox', 'uzum', ...creds, '--orders', 'a:1'], io)).toBe(2);
    expect(io.lines.join('\n')).toMatch(/exactly one of --check/);
    io = capture();
    expect(await runCli([...args('--check', good).slice(0, 4), '--orders', list()], io)).toBe(2);
    expect(io.lines.join('\n')).toMatch(/--login/);
  });

  it('payonce sandbox uzum takes --check with --merchant-url and --pay URL too; a stopped battery is one line, exit 1', async () => {
    const good = await serve(bench.merchant);
    const field = Object.keys(orders().params)[0] as string;
    const list = () => [orders(), orders()].map((o) => `${o.params[field]}:${o.amountTiyin}`).join(',');
    const creds = ['--login', AUTH.login, '--password', AUTH.password, '--service-id', String(SERVICE_ID)];
    const uzum = (...args: string[]) => ['sandbox', 'uzum', ...creds, '--param-field', field, ...args];
    let io = capture();
    expect(await runCli(uzum('--check', '--merchant-url', good.url, '--orders', list()), io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(/all 19 checks passed/);
    io = capture();
    expect(await runCli(uzum('--pay', good.url, '--orders', list()), io)).toBe(0);
    expect(io.lines.filter((l) => l.endsWith(' confirmed'))).toHaveLength(1);
    io = capture();
    expect(await runCli(uzum('--check', good.url, '--password', 'other', '--orders', list()), io)).toBe(1);
    expect(io.lines).toEqual([
      `payonce sandbox: the configured key/credentials were refused (${UZUM_CODES.accessDenied}): check --login and --password`,
    ]);
    io = capture();
    expect(await runCli(uzum('--check', good.url, '--merchant-url', `${good.url}/other`, '--orders', list()), io)).toBe(
      2,
    );
    expect(io.lines.join('\n')).toMatch(/name two endpoints/);
  });
});

/** One battery run per server backend: every check passes on each dialect, one fulfilment for the confirmed order. */
describe.each(SERVER_BACKENDS)('Uzum acceptance battery on %s', (backend) => {
  let bench: UzumBench;
  let app: ServedUzum | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ bench, drop } = await uzumBenchOn(backend));
    app = await serveUzum(bench.merchant);
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });

  it('passes every check against createUzumMerchant', async () => {
    const orders = () => ({ params: bench.addOrder(AMOUNT).params, amountTiyin: AMOUNT });
    const report = await runUzumAcceptance({
      merchantUrl: app?.url as string,
      login: AUTH.login,
      password: AUTH.password,
      serviceId: SERVICE_ID,
      orders,
    });
    expect(
      report.checks.filter((c) => !c.passed),
      formatAcceptanceReport(report).join('\n'),
    ).toEqual([]);
    expect(report.checks).toHaveLength(19);
    expect(await bench.fulfilments(report.transactionIds[0] as string)).toBe(1);
    expect(await bench.fulfilments(report.transactionIds[1] as string)).toBe(0);
  });
});

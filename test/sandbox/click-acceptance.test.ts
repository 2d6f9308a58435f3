import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { formatAcceptanceReport } from '../../packages/sandbox/src/acceptance/acceptance-report.js';
import { runClickAcceptance } from '../../packages/sandbox/src/click/click-acceptance.js';
import { CLICK_CODES } from '../../packages/sandbox/src/click/click-codes.js';
import { AMOUNT_TIYIN, PROTOCOL, SECRET, SERVICE_ID } from '../providers/click/click-fixtures.js';
import type { ClickBench } from '../providers/click/click-harness.js';
import { PAYME_BACKENDS } from '../providers/payme/payme-stores.js';
import { clickBenchOn, recodeClick, type ServedClick, serveClick, staleClickReplay } from './click-merchant-app.js';
import { closedUrl, serveHtmlPage } from './payme-merchant-app.js';

/** The server backends of `PAYME_BACKENDS`; the SQLite battery runs in the first block. */
const SERVER_BACKENDS = PAYME_BACKENDS.filter((backend) => backend !== 'sqlite');

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

describe('Click sandbox codes', () => {
  it("are Click's documented supplier errors (fixtures click/protocol.json)", () => {
    const documented = Object.keys(PROTOCOL.errors_returned_by_supplier).map(Number).sort();
    expect(Object.values(CLICK_CODES).sort()).toEqual(documented);
  });
});

/** The battery against payonce's Click engine (SQLite, Express), against broken merchants, and through the CLI. */
describe('Click acceptance battery', () => {
  let bench: ClickBench;
  let drop: () => Promise<void>;
  const apps: ServedClick[] = [];
  const orders = () => ({ merchantTransId: bench.addOrder(AMOUNT_TIYIN), amountTiyin: AMOUNT_TIYIN });
  const serve = async (...args: Parameters<typeof serveClick>) => {
    const app = await serveClick(...args);
    apps.push(app);
    return app;
  };
  const run = (app: ServedClick, secretKey = SECRET) =>
    runClickAcceptance({ ...app, serviceId: SERVICE_ID, secretKey, orders });

  beforeAll(async () => {
    ({ bench, drop } = await clickBenchOn());
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await drop?.();
  });

  it('passes every check against createClickMerchant behind Express, with one fulfilment for the paid order', async () => {
    const report = await run(await serve(bench.merchant));
    expect(
      report.checks.filter((c) => !c.passed),
      formatAcceptanceReport(report).join('\n'),
    ).toEqual([]);
    expect(report.checks.map((c) => c.name)).toEqual([
      'Prepare: wrong signature',
      'Prepare: unknown order',
      'Prepare: wrong amount',
      'unknown action',
      'Prepare: missing fields',
      'Prepare',
      'Prepare repeated',
      'Complete: wrong signature',
      'Complete: wrong amount',
      'Complete: unknown merchant_prepare_id',
      'Complete',
      'Complete repeated',
      'Prepare for a paid order',
      'failed-payment Complete after confirmation',
      'Prepare (second order)',
      'failed-payment Complete',
      'failed-payment Complete repeated',
      'Complete after the failed payment',
    ]);
    expect(report.checks.every((c) => /docs\.click\.uz|fixtures click/.test(c.why))).toBe(true);
    const sent = report.checks.flatMap((c) => c.exchanges.map((e) => e.body)).join('\n');
    expect(sent).not.toContain(SECRET);
    expect(await bench.fulfilments(Number(report.transactionIds[0]))).toBe(1);
    expect(await bench.fulfilments(Number(report.transactionIds[1]))).toBe(0);
  });

  it('fails, naming the check, against a merchant replaying its first successful answer', async () => {
    const report = await run(await serve(bench.merchant, staleClickReplay()));
    expect(report.passed).toBe(false);
    expect(report.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual([
      'failed-payment Complete after confirmation',
    ]);
    expect(formatAcceptanceReport(report).join('\n')).toMatch(/FAIL 14\. failed-payment Complete after confirmation/);
  });

  it('fails the unknown merchant_prepare_id check alone against a merchant answering -5 for -6', async () => {
    const report = await run(await serve(bench.merchant, recodeClick(-6, -5)));
    expect(report.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual([
      'Complete: unknown merchant_prepare_id',
    ]);
  });

  /** Runs the battery against `prepareUrl` expecting it to stop before its first check with `line`. */
  const stopsBeforeAnyCheck = async (prepareUrl: string, line: string, secretKey = SECRET) => {
    const report = await run({ prepareUrl, completeUrl: prepareUrl, close: async () => {} }, secretKey);
    expect(report.stopped).toBe(line);
    expect(report.passed).toBe(false);
    expect(report.checks).toEqual([]);
    expect(formatAcceptanceReport(report)).toEqual([`stopped: ${line}`]);
  };

  it('stops before any check when nothing listens, naming the connection error', async () => {
    const url = await closedUrl('/click/prepare');
    await stopsBeforeAnyCheck(url, `cannot connect to ${url}: ECONNREFUSED`);
  });

  it("stops before any check at a path that is not the Prepare URL's (HTTP 404)", async () => {
    const url = new URL('/click/wrong', (await serve(bench.merchant)).prepareUrl).href;
    await stopsBeforeAnyCheck(url, `HTTP 404 at ${url} (not the endpoint's path?)`);
  });

  it('stops before any check when the URL answers an HTML page', async () => {
    const page = await serveHtmlPage();
    apps.push({ prepareUrl: page.url, completeUrl: page.url, close: page.close });
    await stopsBeforeAnyCheck(page.url, `HTML answer, not JSON, from ${page.url} (HTTP 200)`);
  });

  it('stops before any check when the merchant refuses the signature of the configured secret key (-1)', async () => {
    const app = await serve(bench.merchant);
    const line = `the configured key/credentials were refused (${CLICK_CODES.signCheckFailed} SIGN CHECK FAILED): check --secret-key (the service SECRET_KEY)`;
    await stopsBeforeAnyCheck(app.prepareUrl, line, `${SECRET}-other`);
  });

  it('stops at the first Prepare of the order when its own amount is refused (-2): amounts given in sum', async () => {
    const app = await serve(bench.merchant);
    const inSum = () => ({ merchantTransId: bench.addOrder(AMOUNT_TIYIN), amountTiyin: AMOUNT_TIYIN / 100 });
    const report = await runClickAcceptance({ ...app, serviceId: SERVICE_ID, secretKey: SECRET, orders: inSum });
    const line = `the order's own amount (${AMOUNT_TIYIN / 100} tiyin) was refused as a wrong amount (${CLICK_CODES.incorrectAmount}): amounts are in tiyin (1 sum = 100 tiyin)`;
    expect(report.stopped).toBe(line);
    expect(report.passed).toBe(false);
    // The checks before it ran and report as usual; none after it ran.
    expect(report.checks.map((c) => [c.name, c.passed])).toEqual([
      ['Prepare: wrong signature', true],
      ['Prepare: unknown order', true],
      ['Prepare: wrong amount', true],
      ['unknown action', true],
      ['Prepare: missing fields', true],
      ['Prepare', false],
    ]);
    expect(formatAcceptanceReport(report).join('\n')).toContain(`stopped: ${line}`);
  });

  it('payonce sandbox click: --check exits 0, 1 against a wrong-code merchant, 2 for usage errors; pays with faults', async () => {
    const good = await serve(bench.merchant);
    const bad = await serve(bench.merchant, recodeClick(-9, -4));
    const list = () => [orders(), orders()].map((o) => `${o.merchantTransId}:${o.amountTiyin}`).join(',');
    const args = (app: ServedClick) => [
      'sandbox',
      'click',
      '--prepare-url',
      app.prepareUrl,
      '--complete-url',
      app.completeUrl,
      '--service-id',
      String(SERVICE_ID),
      '--secret-key',
      SECRET,
    ];
    let io = capture();
    expect(await runCli([...args(good), '--check', '--orders', list()], io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(/all 18 checks passed/);
    expect(io.lines.join('\n')).not.toContain(SECRET);
    io = capture();
    expect(await runCli([...args(bad), '--check', '--orders', list()], io)).toBe(1);
    expect(io.lines.join('\n')).toMatch(/FAIL +failed-payment Complete repeated/);
    io = capture();
    const pay = [...args(good), '--pay', '--orders', list(), '--count', '2', '--inject', 'lost-answer,duplicate'];
    expect(await runCli(pay, io)).toBe(0);
    expect(io.lines.filter((l) => l.endsWith(' completed'))).toHaveLength(2);
    expect(io.lines.join('\n')).toMatch(new RegExp(`moved ${2 * AMOUNT_TIYIN} tiyin`));
    io = capture();
    expect(await runCli([...args(good), '--orders', 'x:1'], io)).toBe(2);
    expect(io.lines.join('\n')).toMatch(/exactly one of --check and --pay/);
    io = capture();
    expect(await runCli([...args(good).slice(0, 4), '--check', '--orders', list()], io)).toBe(2);
    expect(io.lines.join('\n')).toMatch(/--service-id/);
  });

  it('payonce sandbox click takes the URL with --check or --pay too, and a stopped battery is one line and exit 1', async () => {
    const good = await serve(bench.merchant);
    const list = () => [orders(), orders()].map((o) => `${o.merchantTransId}:${o.amountTiyin}`).join(',');
    const creds = ['--service-id', String(SERVICE_ID), '--secret-key', SECRET, '--complete-url', good.completeUrl];
    let io = capture();
    expect(await runCli(['sandbox', 'click', '--check', good.prepareUrl, ...creds, '--orders', list()], io)).toBe(0);
    expect(io.lines.join('\n')).toMatch(/all 18 checks passed/);
    io = capture();
    expect(await runCli(['sandbox', 'click', '--pay', good.prepareUrl, ...creds, '--orders', list()], io)).toBe(0);
    expect(io.lines.filter((l) => l.endsWith(' completed'))).toHaveLength(1);
    const closed = await closedUrl('/click/prepare');
    io = capture();
    expect(await runCli(['sandbox', 'click', '--check', closed, ...creds, '--orders', list()], io)).toBe(1);
    expect(io.lines).toEqual([`payonce sandbox: cannot connect to ${closed}: ECONNREFUSED`]);
    for (const [args, message] of [
      [['--check', closed, '--prepare-url', good.prepareUrl, '--orders', list()], /name two endpoints/],
      [['--check', '--pay', closed, '--orders', list()], /exactly one of --check and --pay/],
      [['--check', '--orders', list()], /--check needs the endpoint: --check URL or --prepare-url URL/],
      [
        ['--check', closed, '--orders', 'x:100'],
        /--orders: the acceptance battery needs at least 2 fresh payable orders/,
      ],
    ] as const) {
      io = capture();
      expect(await runCli(['sandbox', 'click', ...args, ...creds], io), args.join(' ')).toBe(2);
      expect(io.lines.join('\n')).toMatch(message);
    }
  });
});

/** One battery run per server backend: every check passes on each dialect, one fulfilment for the paid order. */
describe.each(SERVER_BACKENDS)('Click acceptance battery on %s', (backend) => {
  let bench: ClickBench;
  let app: ServedClick | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ bench, drop } = await clickBenchOn(backend));
    app = await serveClick(bench.merchant);
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });

  it('passes every check against createClickMerchant', async () => {
    const orders = () => ({ merchantTransId: bench.addOrder(AMOUNT_TIYIN), amountTiyin: AMOUNT_TIYIN });
    const report = await runClickAcceptance({
      ...(app as ServedClick),
      serviceId: SERVICE_ID,
      secretKey: SECRET,
      orders,
    });
    expect(
      report.checks.filter((c) => !c.passed),
      formatAcceptanceReport(report).join('\n'),
    ).toEqual([]);
    expect(report.checks).toHaveLength(18);
    expect(await bench.fulfilments(Number(report.transactionIds[0]))).toBe(1);
    expect(await bench.fulfilments(Number(report.transactionIds[1]))).toBe(0);
  });
});

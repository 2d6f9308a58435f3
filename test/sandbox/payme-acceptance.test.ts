import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPaymeAcceptance } from '../../packages/sandbox/src/payme/payme-acceptance.js';
import { formatPaymeReport } from '../../packages/sandbox/src/payme/payme-acceptance-report.js';
import { AMOUNT, code, KEY } from '../providers/payme/payme-fixtures.js';
import { type PaymeBench, paymeBench } from '../providers/payme/payme-harness.js';
import { PAYME_BACKENDS } from '../providers/payme/payme-stores.js';
import {
  closedUrl,
  paymeBenchOn,
  recode,
  type ServedApp,
  serveHtmlPage,
  serveMerchant,
  staleReplay,
} from './payme-merchant-app.js';

/** The server backends of `PAYME_BACKENDS`; the SQLite battery runs in the first block. */
const SERVER_BACKENDS = PAYME_BACKENDS.filter((backend) => backend !== 'sqlite');

/** The battery against payonce's Payme engine (SQLite, Express), and against two broken merchants. */
describe('Payme acceptance battery', () => {
  let bench: PaymeBench;
  let shop: PaymeBench;
  let drop: () => Promise<void>;
  const apps: ServedApp[] = [];
  const orders = () => ({ account: bench.addOrder(AMOUNT).account, amount: AMOUNT });
  const run = (app: ServedApp, key = KEY) =>
    runPaymeAcceptance({ merchantUrl: app.url, key, orders, clock: bench.clock });

  beforeAll(async () => {
    let store: Awaited<ReturnType<typeof paymeBenchOn>>['store'];
    ({ bench, store, drop } = await paymeBenchOn());
    // A shop whose findOrder, like docs/providers/payme.md's, no longer offers an order once it was paid.
    const paid = new Set<string>();
    const accountValue = (account: Record<string, unknown>) => String(Object.values(account)[0]);
    shop = paymeBench(
      store,
      {
        findOrder: async (account) => {
          const order = bench.orders.get(accountValue(account));
          return order === undefined || paid.has(order.orderId) ? null : order;
        },
        onPerformed: async (_trx, tx) => {
          paid.add(tx.orderId);
        },
      },
      bench.orders,
    );
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await drop?.();
  });
  const serve = async (...args: Parameters<typeof serveMerchant>) => {
    const app = await serveMerchant(...args);
    apps.push(app);
    return app;
  };

  it('passes every check against createPaymeMerchant behind Express, and each verdict shows what was sent', async () => {
    const report = await run(await serve(bench.merchant));
    expect(
      report.checks.filter((c) => !c.passed),
      formatPaymeReport(report).join('\n'),
    ).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        'credentials: a wrong key',
        'CheckPerformTransaction: unknown account',
        'CreateTransaction repeated',
        'CreateTransaction: order already has a live transaction',
        'PerformTransaction repeated',
        'CancelTransaction before perform',
        'CancelTransaction after perform',
        'GetStatement',
        'unknown method',
        'malformed JSON',
      ]),
    );
    expect(report.checks).toHaveLength(24);
    const sent = report.checks.flatMap((c) => c.exchanges.map((e) => `${e.auth} ${e.body}`)).join('\n');
    expect(sent).not.toContain(KEY); // the key is never in the report
    expect(await bench.fulfilments(report.transactionIds[0] as string)).toBe(1);
    expect(await bench.fulfilments(report.transactionIds[1] as string)).toBe(0);
  });

  it('fails, naming the checks, against a merchant that replays the first answer per transaction id', async () => {
    const report = await run(await serve(bench.merchant, staleReplay()));
    expect(report.passed).toBe(false);
    const failed = report.checks.filter((c) => !c.passed).map((c) => c.name);
    expect(failed).toEqual(
      expect.arrayContaining([
        'PerformTransaction after cancel (Perform → Cancel → Perform)',
        'CreateTransaction after cancel, same id (Create → Cancel → Create)',
        'CheckTransaction after cancel',
      ]),
    );
    const create = report.checks.find((c) => c.name.startsWith('CreateTransaction after cancel'));
    expect(create?.got).toMatch(/^result .*"state":1/);
    expect(create?.expected).toBe(`error ${code('-31008')}`);
    expect(formatPaymeReport(report).join('\n')).toMatch(/FAIL \d+\. CreateTransaction after cancel, same id/);
  });

  it('fails the wrong-amount check alone against a merchant answering -31050 for a wrong amount', async () => {
    const report = await run(await serve(bench.merchant, recode(code('-31001'), code('-31050..-31099'))));
    expect(report.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual([
      'CheckPerformTransaction: wrong amount',
    ]);
  });

  it('stops at the first use of an order that is no longer payable, with one clear failure', async () => {
    const app = await serve(shop.merchant);
    const battery = (list: { account: Record<string, unknown>; amount: number }[]) =>
      runPaymeAcceptance({ merchantUrl: app.url, key: KEY, orders: list, clock: shop.clock });
    const used = [orders(), orders()];
    expect((await battery(used)).passed).toBe(true);

    const again = await battery(used); // order 1 was paid (and refunded) by the first run
    expect(again.passed).toBe(false);
    expect(again.checks).toHaveLength(4);
    expect(again.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual(['CheckPerformTransaction: wrong amount']);
    const account = JSON.stringify(used[0]?.account);
    expect(again.stopped).toMatch(`order ${account} is not payable: pass fresh orders`);
    expect(again.transactionIds).toEqual([]);
    expect(formatPaymeReport(again).join('\n')).toContain(`stopped: order ${account} is not payable`);

    const busy = await battery([orders(), used[0] as (typeof used)[0]]);
    expect(busy.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual(['CreateTransaction (second order)']);
    expect(busy.checks.at(-1)?.name).toBe('CreateTransaction (second order)');
    expect(busy.stopped).toMatch(/is not payable: pass fresh orders \(CreateTransaction .* answered error -310[5-9]\d/);
  });

  /** Runs the battery expecting it to stop before its first check with `line`, the report's one line. */
  const stopsBeforeAnyCheck = async (
    merchantUrl: string,
    line: string,
    options: { key?: string; orders?: () => { account: Record<string, unknown>; amount: number } } = {},
  ) => {
    const report = await runPaymeAcceptance({
      merchantUrl,
      key: options.key ?? KEY,
      orders: options.orders ?? orders,
      clock: bench.clock,
    });
    expect(report.stopped).toBe(line);
    expect(report.passed).toBe(false);
    expect(report.checks).toEqual([]);
    expect(formatPaymeReport(report)).toEqual([`stopped: ${line}`]);
  };

  it('stops before any check when nothing listens, naming the connection error', async () => {
    const url = await closedUrl('/payme');
    await stopsBeforeAnyCheck(url, `cannot connect to ${url}: ECONNREFUSED`);
  });

  it("stops before any check at a path that is not the endpoint's (HTTP 404)", async () => {
    const url = `${(await serve(bench.merchant)).url}-wrong`;
    await stopsBeforeAnyCheck(url, `HTTP 404 at ${url} (not the endpoint's path?)`);
  });

  it('stops before any check when the URL answers an HTML page', async () => {
    const page = await serveHtmlPage();
    apps.push(page);
    await stopsBeforeAnyCheck(page.url, `HTML answer, not JSON, from ${page.url} (HTTP 200)`);
  });

  it('stops before any check when the endpoint refuses the configured key (-32504)', async () => {
    const app = await serve(bench.merchant);
    const line = `the configured key/credentials were refused (${code('-32504')}): check --key (the cashbox key)`;
    await stopsBeforeAnyCheck(app.url, line, { key: `${KEY}-other` });
  });

  it("stops before any check when the order's own amount is refused (-31001): amounts given in sum", async () => {
    const app = await serve(bench.merchant);
    const inSum = () => ({ account: bench.addOrder(AMOUNT).account, amount: AMOUNT / 100 });
    const line = `the order's own amount (${AMOUNT / 100} tiyin) was refused as a wrong amount (${code('-31001')}): amounts are in tiyin (1 sum = 100 tiyin)`;
    await stopsBeforeAnyCheck(app.url, line, { orders: inSum });
  });

  it("stops before any check when the account error's data names another account field", async () => {
    const app = await serve(bench.merchant);
    const field = Object.keys(bench.addOrder(AMOUNT).account)[0] as string;
    const otherField = () => ({ account: { order: Object.values(bench.addOrder(AMOUNT).account)[0] }, amount: AMOUNT });
    const line = `the endpoint expects account field ${field}, not order (--account-field ${field})`;
    await stopsBeforeAnyCheck(app.url, line, { orders: otherField });
  });

  it('refuses fewer than two orders with InvalidOption', async () => {
    const app = await serve(bench.merchant);
    await expect(runPaymeAcceptance({ merchantUrl: app.url, key: KEY, orders: [orders()] })).rejects.toThrow(
      /at least 2/,
    );
  });
});

/** One battery run per server backend: every check passes on each dialect, one fulfilment for the paid order. */
describe.each(SERVER_BACKENDS)('Payme acceptance battery on %s', (backend) => {
  let bench: PaymeBench;
  let app: ServedApp | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ bench, drop } = await paymeBenchOn(backend));
    app = await serveMerchant(bench.merchant);
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });

  it('passes every check against createPaymeMerchant', async () => {
    const orders = () => ({ account: bench.addOrder(AMOUNT).account, amount: AMOUNT });
    const report = await runPaymeAcceptance({ merchantUrl: app?.url as string, key: KEY, orders, clock: bench.clock });
    expect(
      report.checks.filter((c) => !c.passed),
      formatPaymeReport(report).join('\n'),
    ).toEqual([]);
    expect(report.checks).toHaveLength(24);
    expect(await bench.fulfilments(report.transactionIds[0] as string)).toBe(1);
    expect(await bench.fulfilments(report.transactionIds[1] as string)).toBe(0);
  });
});

import { randomUUID } from 'node:crypto';
import { type AcceptanceReport, reportOf } from '../acceptance/acceptance-report.js';
import { CheckRunner } from '../acceptance/check-runner.js';
import { uzumConfirmedChecks } from './uzum-acceptance-confirmed.js';
import { uzumRequestChecks } from './uzum-acceptance-requests.js';
import { uzumReversedChecks } from './uzum-acceptance-reversed.js';
import type { UzumBatteryTransaction } from './uzum-battery.js';
import { uzumPreflight } from './uzum-preflight.js';
import { checkUzumTarget } from './uzum-target.js';
import { type UzumOrderSource, uzumOrderTaker } from './uzum-test-orders.js';
import { callUzum, type UzumCallSpec, type UzumExchange, type UzumTarget, uzumUrlOf } from './uzum-wire.js';

/** How many fresh payable orders one run of the Uzum battery uses. */
export const UZUM_ACCEPTANCE_ORDERS = 2;

/** Options of {@link runUzumAcceptance}. */
export interface UzumAcceptanceOptions extends UzumTarget {
  /**
   * Fresh payable orders, at least {@link UZUM_ACCEPTANCE_ORDERS}: a list of `{ params, amountTiyin }` or a
   * function giving one per call. The first is paid (confirmed); the second created and reversed.
   */
  readonly orders: UzumOrderSource;
  /** Params no order has. @default the first order's params with its first field set to `uzum-sandbox-unknown-<random>` */
  readonly unknownParams?: Readonly<Record<string, unknown>>;
}

/** What `runUzumAcceptance` found. */
export type UzumAcceptanceReport = AcceptanceReport<UzumExchange>;

function unknownParamsOf(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const field = Object.keys(params)[0] as string;
  return { ...params, [field]: `uzum-sandbox-unknown-${randomUUID().slice(0, 8)}` };
}

/**
 * Runs an acceptance battery of Uzum Bank's Merchant API against the merchant's webhooks (`<merchantUrl>/check`,
 * `/create`, `/confirm`, `/reverse`, `/status`), with Basic authorization: wrong or missing credentials (10001),
 * another serviceId (10006), an unknown order (10007), a wrong amount (10011), an unknown transId (10014), a payable
 * /check (OK); /create and its repeat (the same transTime), /status (CREATED), /confirm and its repeat (the same
 * confirmTime, or 10016), /status (CONFIRMED); then on the second order /confirm before /create (10014), /create,
 * /reverse and its repeat (the same reverseTime, or 10018), /confirm after /reverse (10015), /status (REVERSED).
 * Uzum Bank publishes no test battery of its own; the expected answers come from the fixtures, which mark the codes
 * and behaviours only one source gives. Each check records what was sent (the password never), what came back,
 * what was expected and why. Never throws for what the merchant answers; needs no access to its database.
 * A /check of the first order goes first: when the webhooks cannot be reached, answer 404 or HTML, or refuse the
 * credentials (10001), the battery does not run and `stopped` says so in one line. A check that cannot connect or
 * gets a 404 stops it there, and so does the order's own amount refused with 10011 at /create (sum given for tiyin).
 * @throws {InvalidOption} (`merchantUrl`) not an http(s) URL; (`login`, `password`) empty; (`serviceId`) not a
 *   positive integer; (`orders`) fewer than two orders, or one without params or a positive integer amount.
 * @see https://developer.uzumbank.uz/en/merchant/ ; fixtures uzum/protocol.json, uzum/examples/*.json.
 * @example
 * const report = await runUzumAcceptance({ merchantUrl: 'http://127.0.0.1:3000/uzum', login: 'uzum',
 *   password: process.env.UZUM_PASSWORD!, serviceId: 123123,
 *   orders: [{ params: { account: '1001' }, amountTiyin: 500_000 }, { params: { account: '1002' }, amountTiyin: 500_000 }] });
 * console.log(formatAcceptanceReport(report).join('\n'));
 */
export async function runUzumAcceptance(options: UzumAcceptanceOptions): Promise<UzumAcceptanceReport> {
  checkUzumTarget(options);
  const take = uzumOrderTaker(options.orders, UZUM_ACCEPTANCE_ORDERS);
  const runner = new CheckRunner<UzumCallSpec, UzumExchange>(
    (spec) => callUzum(options, spec),
    (spec) => uzumUrlOf(options, spec),
  );
  const first = await take();
  if (!(await uzumPreflight(runner, first))) return reportOf([], [], runner.stopped);
  const unknown = options.unknownParams ?? unknownParamsOf(first.params);
  await uzumRequestChecks(runner, first, unknown, options.serviceId, randomUUID);
  const paid: UzumBatteryTransaction = { transId: randomUUID(), order: first };
  await uzumConfirmedChecks(runner, paid);
  if (runner.stopped !== null) return reportOf(runner.results, [paid.transId], runner.stopped);
  const reversed: UzumBatteryTransaction = { transId: randomUUID(), order: await take() };
  await uzumReversedChecks(runner, reversed);
  return reportOf(runner.results, [paid.transId, reversed.transId], runner.stopped);
}

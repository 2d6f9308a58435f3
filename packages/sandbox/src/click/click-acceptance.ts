import { type AcceptanceReport, reportOf } from '../acceptance/acceptance-report.js';
import { CheckRunner } from '../acceptance/check-runner.js';
import { clickFailedChecks } from './click-acceptance-failed.js';
import { clickPaidChecks } from './click-acceptance-paid.js';
import { clickRequestChecks } from './click-acceptance-requests.js';
import type { ClickBatteryTransaction } from './click-battery.js';
import { clickPreflight } from './click-preflight.js';
import { checkClickTarget } from './click-target.js';
import { type ClickOrderSource, clickOrderTaker } from './click-test-orders.js';
import { newClickTransId } from './click-trans-id.js';
import {
  type ClickCallSpec,
  type ClickExchange,
  type ClickTarget,
  callClick,
  clickAmountOf,
  clickUrlOf,
} from './click-wire.js';

/** How many fresh payable orders one run of the Click battery uses. */
export const CLICK_ACCEPTANCE_ORDERS = 2;

/** Options of {@link runClickAcceptance}. */
export interface ClickAcceptanceOptions extends ClickTarget {
  /**
   * Fresh payable orders, at least {@link CLICK_ACCEPTANCE_ORDERS}: a list of `{ merchantTransId, amountTiyin }`
   * or a function giving one per call. The first is paid; the second prepared and failed (cancelled).
   */
  readonly orders: ClickOrderSource;
  /** A merchant_trans_id no order has. @default `click-sandbox-unknown-<random>` */
  readonly unknownOrder?: string;
}

/** What `runClickAcceptance` found. */
export type ClickAcceptanceReport = AcceptanceReport<ClickExchange>;

/**
 * Runs the checks Click's SHOP API test scenarios make before a service goes live, against the merchant's Prepare
 * and Complete URLs, signing every call with the service's secret key: a Prepare signed with a wrong key (-1), for
 * an unknown order (-5), with a wrong amount (-2), an unknown action (-3), a missing field (-8); Prepare and its
 * repeat (the same merchant_prepare_id); Complete with a wrong signature (-1), amount (-2), merchant_prepare_id
 * (-6); Complete (0) and its repeat (0 with the same merchant_confirm_id, or -4); a Prepare for the paid order
 * (-4); a failed-payment Complete after confirmation (-4 or -9); then on the second order Prepare, a Complete with
 * Click's error=-5017 (-9), the same again (-9) and a Complete with error=0 (-9). Each check records what was sent
 * (the key never), what came back, what was expected and why, citing Click's documentation.
 * Never throws for what the merchant answers (a failed check says it); needs no access to the merchant's database.
 * A Prepare for the unknown order goes first: when the Prepare URL cannot be reached, answers 404 or HTML, or
 * refuses the signature (-1), the battery does not run and `stopped` says so in one line. A check that cannot
 * connect or gets a 404 stops it there, and so does the order's own amount refused with -2 (sum given for tiyin).
 * @throws {InvalidOption} (`prepareUrl`, `completeUrl`) not an http(s) URL; (`serviceId`) not a positive integer;
 *   (`secretKey`) empty; (`orders`) fewer than two orders, or one without an id or a positive integer amount.
 * @see https://docs.click.uz/en/click-api-testing/ ; https://docs.click.uz/en/click-api-request/ ;
 *   https://docs.click.uz/en/click-api-error/ ; fixtures click/protocol.json.
 * @example
 * const report = await runClickAcceptance({ prepareUrl: 'http://127.0.0.1:3000/click/prepare',
 *   completeUrl: 'http://127.0.0.1:3000/click/complete', serviceId: 12345, secretKey: process.env.CLICK_SECRET_KEY!,
 *   orders: [{ merchantTransId: '1001', amountTiyin: 500_000 }, { merchantTransId: '1002', amountTiyin: 500_000 }] });
 * console.log(formatAcceptanceReport(report).join('\n'));
 */
export async function runClickAcceptance(options: ClickAcceptanceOptions): Promise<ClickAcceptanceReport> {
  checkClickTarget(options);
  const take = clickOrderTaker(options.orders, CLICK_ACCEPTANCE_ORDERS);
  const runner = new CheckRunner<ClickCallSpec, ClickExchange>(
    (spec) => callClick(options, spec),
    (spec) => clickUrlOf(options, spec),
  );
  const first = await take();
  const unknown = options.unknownOrder ?? `click-sandbox-unknown-${newClickTransId()}`;
  if (!(await clickPreflight(runner, first, unknown, newClickTransId()))) return reportOf([], [], runner.stopped);
  await clickRequestChecks(runner, first, unknown, newClickTransId);
  const paid: ClickBatteryTransaction = {
    clickTransId: newClickTransId(),
    order: first,
    amount: clickAmountOf(first.amountTiyin),
  };
  await clickPaidChecks(runner, paid, newClickTransId);
  if (runner.stopped !== null) return reportOf(runner.results, [String(paid.clickTransId)], runner.stopped);
  const second = await take();
  const failed: ClickBatteryTransaction = {
    clickTransId: newClickTransId(),
    order: second,
    amount: clickAmountOf(second.amountTiyin),
  };
  await clickFailedChecks(runner, failed);
  return reportOf(runner.results, [String(paid.clickTransId), String(failed.clickTransId)], runner.stopped);
}

import { type Clock, systemClock } from 'payonce/internal/core/clock.js';
import { reportOf } from '../acceptance/acceptance-report.js';
import { CheckRunner } from '../acceptance/check-runner.js';
import { cancelledChecks, statementCheck } from './payme-acceptance-cancelled.js';
import { paidChecks } from './payme-acceptance-paid.js';
import type { PaymeAcceptanceReport } from './payme-acceptance-report.js';
import { requestChecks } from './payme-acceptance-requests.js';
import type { BatteryTransaction } from './payme-battery-transaction.js';
import { checkTarget, newPaymeId } from './payme-payer.js';
import { paymePreflight } from './payme-preflight.js';
import { callPayme, type PaymeCallSpec, type PaymeExchange, type PaymeTarget } from './payme-rpc.js';
import { orderTaker, type PaymeOrderSource } from './payme-test-orders.js';

/** How many fresh payable orders one run of the battery uses. */
export const PAYME_ACCEPTANCE_ORDERS = 2;

/** Options of {@link runPaymeAcceptance}. */
export interface PaymeAcceptanceOptions extends PaymeTarget {
  /**
   * Fresh payable orders, at least {@link PAYME_ACCEPTANCE_ORDERS}: a list of `{ account, amount }` (amount in
   * tiyin) or a function giving one per call. The first is paid, refunded and listed; the second created and
   * cancelled. Both are left with no live transaction.
   */
  readonly orders: PaymeOrderSource;
  /** An account no order has. @default the first order's account with its first field set to `payme-sandbox-unknown-<random>` */
  readonly unknownAccount?: Readonly<Record<string, unknown>>;
  /** Payme's clock, for the `time` of each CreateTransaction. @default systemClock */
  readonly clock?: Clock;
}

function unknownAccountOf(account: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const field = Object.keys(account)[0] as string;
  return { ...account, [field]: `payme-sandbox-unknown-${newPaymeId().slice(0, 8)}` };
}

/**
 * Runs the checks Payme's test cashier (the sandbox at test.paycom.uz) makes before a cashbox may go live, against
 * `merchantUrl` with the cashbox `key`: wrong credentials (-32504), wrong amount (-31001), unknown account
 * (-31050…-31099), a payable CheckPerform, Create and its repeat (same create_time), a second Payme id for a busy
 * order (-31050…), Perform and its repeat (same perform_time), CheckTransaction, Cancel after perform (-2) and its
 * repeat, Perform after cancel (-31008), Cancel before perform (-1 and its reason), Create → Cancel → Create
 * (-31008), GetStatement, an unknown method (-32601) and malformed JSON (-32700). Each check records what was
 * sent (key hidden), what came back, what was expected and why, with the Payme documentation page.
 * Never throws for what the merchant answers (a failed check says it); needs no access to the merchant's database.
 * One CheckPerformTransaction of the first order (its own amount) goes first: when the endpoint cannot be reached,
 * answers 404 or HTML, refuses the key (-32504), refuses the order's own amount (-31001: tiyin given as sum?) or
 * names another account field in an account error's `data`, the battery does not run and `stopped` says so in one
 * line. A check that cannot connect or gets a 404 stops it there too. An order the merchant refuses at its own
 * amount with an account error (-31050 … -31099: paid by an earlier run, say) stops the battery at that check, with
 * one failure "order … is not payable: pass fresh orders" (`stopped`).
 * @throws {InvalidOption} (`merchantUrl`, `key`) not an http(s) URL or empty; (`orders`) fewer than two orders, or
 *   an order without account fields or a positive integer amount.
 * @see https://developer.help.paycom.uz/metody-merchant-api/ ; Payme's sandbox runs two scenarios, a created then
 *   cancelled transaction and a created, performed then cancelled one (https://developer.help.paycom.uz/pesochnitsa/).
 * @example
 * const report = await runPaymeAcceptance({ merchantUrl: 'http://127.0.0.1:3000/payme', key: process.env.PAYME_TEST_KEY!,
 *   orders: [{ account: { order_id: '1001' }, amount: 500_000 }, { account: { order_id: '1002' }, amount: 500_000 }] });
 * console.log(formatPaymeReport(report).join('\n'));
 */
export async function runPaymeAcceptance(options: PaymeAcceptanceOptions): Promise<PaymeAcceptanceReport> {
  checkTarget(options);
  const take = orderTaker(options.orders, PAYME_ACCEPTANCE_ORDERS);
  const clock = options.clock ?? systemClock;
  const runner = new CheckRunner<PaymeCallSpec, PaymeExchange>(
    (spec) => callPayme(options, spec),
    () => options.merchantUrl,
  );
  const first = await take();
  let lastTime = 0;
  const nextTime = () => {
    lastTime = Math.max(clock.now(), lastTime + 1);
    return lastTime;
  };
  const ids: string[] = [];
  const report = (): PaymeAcceptanceReport => reportOf(runner.results, ids, runner.stopped);
  if (!(await paymePreflight(runner, first))) return report();
  await requestChecks(runner, first, options.unknownAccount ?? unknownAccountOf(first.account));
  if (runner.stopped !== null) return report();
  const paid: BatteryTransaction = { id: newPaymeId(), time: nextTime(), ...first };
  const refusedId = newPaymeId();
  ids.push(paid.id);
  await paidChecks(runner, first, paid, refusedId);
  const second = await take();
  const cancelled: BatteryTransaction = { id: newPaymeId(), time: nextTime(), ...second };
  ids.push(cancelled.id);
  await cancelledChecks(runner, cancelled);
  if (runner.stopped !== null) return report();
  await statementCheck(runner, [paid, cancelled], refusedId);
  return report();
}

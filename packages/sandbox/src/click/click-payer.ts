import { type Clock, systemClock } from 'payonce/internal/core/clock.js';
import type { PaySteps } from '../acceptance/pay-steps.js';
import { CLICK_CODES, CLICK_FAILED_PAYMENT_ERROR } from './click-codes.js';
import { ClickLedger } from './click-ledger.js';
import type { ClickPayFaults } from './click-pay-faults.js';
import { checkClickTarget } from './click-target.js';
import { type ClickTestOrder, checkedClickOrder } from './click-test-orders.js';
import { newClickTransId } from './click-trans-id.js';
import { clickError, describeClick, isMerchantId } from './click-verdicts.js';
import { type ClickCallSpec, type ClickExchange, type ClickTarget, callClick, clickAmountOf } from './click-wire.js';

/** Options of {@link createClickPayer}. */
export interface ClickPayerOptions extends ClickTarget {
  /** Click's clock, for each call's `sign_time`. @default systemClock */
  readonly clock?: Clock;
  /** Repeats of a call left unanswered before the payer gives up on it. @default 5 */
  readonly maxRepeats?: number;
  /** How long the `timeout` fault waits before it stops listening, ms. @default 5 */
  readonly timeoutAbortMs?: number;
}

/** How one payment ended. */
export interface ClickPayResult {
  readonly clickTransId: number;
  readonly merchantTransId: string;
  /** Tiyin. */
  readonly amountTiyin: number;
  /**
   * `completed` (Complete answered 0, or -4 to a repeat), `cancelled` (a failed payment answered -9), `refused`
   * (Prepare or Complete answered another error, or a Prepare's 0 came without a merchant_prepare_id: see
   * `reason`), `unknown` (no answer after every repeat).
   */
  readonly outcome: 'completed' | 'cancelled' | 'refused' | 'unknown';
  /** The error code that refused it. */
  readonly refusedWith?: number;
  /** Why the payer stopped the payment itself (a Prepare answered 0 without a usable merchant_prepare_id). */
  readonly reason?: string;
}

/** A stateful client-side Click: pays orders through a merchant's Prepare and Complete URLs, with faults, into its ledger. */
export interface ClickPayer {
  /**
   * Pays one order: Prepare → Complete (with Click's `error=-5017` for the `failedPayment` fault); `steps` can hold
   * the payment between the two.
   * @throws {InvalidOption} (`orders`) the order has no id or no positive integer amount.
   */
  pay(order: ClickTestOrder, faults?: ClickPayFaults, steps?: PaySteps): Promise<ClickPayResult>;
  /** The books: payments, money moved, faults injected, breaches seen. */
  readonly ledger: ClickLedger;
}

/** What a repeat must reproduce: the error and the merchant's id (as text). */
const keyOf = (exchange: ClickExchange): string =>
  exchange.answer === null ? 'no JSON answer' : describeClick(exchange);

/** A repeat agrees with the first answer: the same, or -4 "Already paid" after a Complete answered 0. */
function agrees(first: ClickExchange, other: ClickExchange, action: number): boolean {
  if (keyOf(first) === keyOf(other)) return true;
  return action === 1 && clickError(first) === 0 && clickError(other) === CLICK_CODES.alreadyPaid;
}

/**
 * Creates a Click sandbox payer: it plays Click's side of the SHOP API against the merchant's Prepare and Complete
 * URLs, as Click's servers do — a Prepare (action 0, a new `click_trans_id`, signed with the secret key), then on 0
 * a Complete (action 1) with the `merchant_prepare_id` answered; a call that got no answer is sent again with the
 * same fields (up to `maxRepeats`). Faults (`ClickPayFaults`) drop answers, time out, duplicate and parallelise
 * calls, and fail the payment at Click (`error=-5017`, which must be answered -9); every repeat's answer must agree
 * with the first (else a mismatch is recorded in the ledger). A Prepare answered 0 without a merchant_prepare_id
 * (a positive integer) ends the payment `refused`, with the `reason` and a mismatch, and no Complete is sent.
 * @throws {InvalidOption} (`prepareUrl`, `completeUrl`) not an http(s) URL; (`serviceId`) not a positive integer;
 *   (`secretKey`) empty.
 * @see https://docs.click.uz/en/click-api-request/ (Prepare → Complete); https://docs.click.uz/en/click-api-error/
 *   ("< 0": the supplier cancels and answers -9).
 */
export function createClickPayer(options: ClickPayerOptions): ClickPayer {
  checkClickTarget(options);
  const clock = options.clock ?? systemClock;
  const maxRepeats = options.maxRepeats ?? 5;
  const ledger = new ClickLedger();

  async function once(spec: ClickCallSpec): Promise<ClickExchange> {
    ledger.called();
    return callClick(options, spec, clock.now());
  }

  async function answered(spec: ClickCallSpec): Promise<ClickExchange> {
    let exchange = await once(spec);
    for (let i = 0; i < maxRepeats && clickError(exchange) === null; i++) exchange = await once(spec);
    return exchange;
  }

  async function send(spec: ClickCallSpec, faults: ClickPayFaults): Promise<ClickExchange> {
    const id = spec.clickTransId;
    const call = spec.action === 1 ? 'Complete' : 'Prepare';
    if (faults.lostAnswer) {
      ledger.fault(id, call, 'lost-answer');
      await once(spec);
    }
    if (faults.timeout) {
      ledger.fault(id, call, 'timeout');
      await once({ ...spec, abortAfterMs: options.timeoutAbortMs ?? 5 });
    }
    const copies = Math.max(1, faults.parallel ?? 1);
    if (copies > 1) ledger.fault(id, call, `parallel=${copies}`);
    const [first, ...others] = await Promise.all(Array.from({ length: copies }, () => answered(spec)));
    const answer = first as ClickExchange;
    const compare = (other: ClickExchange, how: string) => {
      if (!agrees(answer, other, spec.action)) {
        ledger.mismatch(id, call, `${how}: ${keyOf(other)} after ${keyOf(answer)}`);
      }
    };
    for (const other of others) compare(other, 'a parallel copy');
    for (let i = 0; i < (faults.duplicate ?? 0); i++) {
      ledger.fault(id, call, 'duplicate');
      compare(await answered(spec), 'a repeat');
    }
    return answer;
  }

  async function pay(
    given: ClickTestOrder,
    faults: ClickPayFaults = {},
    steps: PaySteps = {},
  ): Promise<ClickPayResult> {
    const order = checkedClickOrder(given, 'order');
    const clickTransId = newClickTransId();
    const base = { clickTransId, merchantTransId: order.merchantTransId, amountTiyin: order.amountTiyin };
    ledger.open(clickTransId, order.merchantTransId, order.amountTiyin);
    const prepareSpec: ClickCallSpec = {
      action: 0,
      clickTransId,
      merchantTransId: order.merchantTransId,
      amount: clickAmountOf(order.amountTiyin),
    };
    const prepared = await send(prepareSpec, faults);
    const prepareError = clickError(prepared);
    if (prepareError === null) return { ...base, outcome: 'unknown' };
    if (prepareError !== 0) return { ...base, outcome: 'refused', refusedWith: prepareError };
    const prepareId = prepared.answer?.merchant_prepare_id;
    if (!isMerchantId(prepareId)) {
      const reason = `Prepare answered 0 without a merchant_prepare_id (got ${JSON.stringify(prepareId) ?? 'none'}): no Complete sent`;
      ledger.mismatch(clickTransId, 'Prepare', reason);
      return { ...base, outcome: 'refused', reason };
    }
    ledger.report(clickTransId, 'prepared', prepareId);
    await steps.afterFirstStep?.();
    const error = faults.failedPayment ? CLICK_FAILED_PAYMENT_ERROR : 0;
    if (faults.failedPayment) ledger.fault(clickTransId, 'Complete', `failed-payment (error=${error})`);
    const completeSpec = {
      ...prepareSpec,
      action: 1,
      merchantPrepareId: Number(prepareId),
      error,
    };
    const completed = await send(completeSpec, faults);
    return finish(base, completed, faults.failedPayment === true);
  }

  function finish(base: Omit<ClickPayResult, 'outcome'>, completed: ClickExchange, failed: boolean): ClickPayResult {
    const error = clickError(completed);
    if (error === null) return { ...base, outcome: 'unknown' };
    if (failed) {
      if (error === CLICK_CODES.cancelled) {
        ledger.report(base.clickTransId, 'cancelled', null);
        return { ...base, outcome: 'cancelled' };
      }
      ledger.mismatch(base.clickTransId, 'Complete', `a failed payment (error < 0) answered ${error}, not -9`);
      return { ...base, outcome: 'refused', refusedWith: error };
    }
    if (error === 0 || error === CLICK_CODES.alreadyPaid) {
      ledger.report(base.clickTransId, 'completed', completed.answer?.merchant_confirm_id);
      return { ...base, outcome: 'completed' };
    }
    return { ...base, outcome: 'refused', refusedWith: error };
  }

  return Object.freeze({ pay, ledger });
}

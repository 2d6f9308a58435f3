import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from 'payonce/internal/core/clock.js';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { PaySteps } from '../acceptance/pay-steps.js';
import { answerKey, errorCode } from './payme-answers.js';
import { PAYME_CODES, PAYME_REASONS, PAYME_TIMEOUT_MS } from './payme-codes.js';
import { PaymeLedger } from './payme-ledger.js';
import type { PaymePayFaults } from './payme-pay-faults.js';
import { callPayme, type PaymeCallSpec, type PaymeExchange, type PaymeTarget } from './payme-rpc.js';
import { checkedOrder, type PaymeTestOrder } from './payme-test-orders.js';

/** Options of {@link createPaymePayer}. */
export interface PaymePayerOptions extends PaymeTarget {
  /** Payme's clock: the `time` of each CreateTransaction, ms. @default systemClock */
  readonly clock?: Clock;
  /**
   * Moves the merchant's clock (and `clock`, if it is the same) forward by `ms`: the `expire` fault calls it with
   * 12 h + 1 min. Absent, `expire` instead sends a `time` 12 h + 1 min in the past (a merchant counting the
   * timeout from Payme's `time`, as the docs define it, sees the same thing).
   */
  readonly advanceClock?: (ms: number) => void | Promise<void>;
  /** Repeats of a call left unanswered or answered -32400 before the payer gives up on it. @default 5 */
  readonly maxRepeats?: number;
  /** How long the `timeout` fault waits before it stops listening, ms. @default 5 */
  readonly timeoutAbortMs?: number;
}

/** How one payment ended, as CheckTransaction reported it at the end. */
export interface PaymePayResult {
  readonly paymeId: string;
  readonly account: Readonly<Record<string, unknown>>;
  /** Tiyin. */
  readonly amount: number;
  /**
   * `performed` (state 2), `cancelled` (-1 or -2), `refused` (CheckPerform or Create answered an error), `unknown`
   * (no answer after every repeat, or CheckTransaction gave no state).
   */
  readonly outcome: 'performed' | 'cancelled' | 'refused' | 'unknown';
  /** The final state CheckTransaction reported (0 when refused or unknown). */
  readonly state: number;
  /** The error code that refused it. */
  readonly refusedWith?: number;
}

/** A stateful client-side Payme: pays orders through a merchant endpoint, with faults, into its ledger. */
export interface PaymePayer {
  /**
   * Pays one order: CheckPerformTransaction → CreateTransaction → PerformTransaction → CheckTransaction.
   * @throws {InvalidOption} (`orders`) the order has no account fields or no positive integer amount.
   */
  pay(order: PaymeTestOrder, faults?: PaymePayFaults, steps?: PaySteps): Promise<PaymePayResult>;
  /** The books: transactions, money moved, faults injected, breaches seen. */
  readonly ledger: PaymeLedger;
}

/** A fresh 24-hex-character Payme transaction id (Payme's ID type). */
export const newPaymeId = (): string => randomBytes(12).toString('hex');

/**
 * Creates a Payme sandbox payer: it plays Payme's side of the Merchant API against `merchantUrl`, as Payme's
 * servers do — CheckPerformTransaction, CreateTransaction (a new 24-character id, `time` from `clock`),
 * PerformTransaction, then CheckTransaction for the final state; a call that got no answer or -32400 is repeated
 * with the same params (up to `maxRepeats`). Faults (`PaymePayFaults`) drop answers, time out, duplicate and
 * parallelise calls, cancel while performing and let 12 hours pass; every repeat's answer must equal the first
 * (else a mismatch is recorded in the ledger).
 * @throws {InvalidOption} (`merchantUrl`) not an http(s) URL; (`key`) empty.
 * @see https://developer.help.paycom.uz/metody-merchant-api/ ; fixtures payme/idempotency-rules.json (Payme repeats
 *   a call whose answer it did not get, so every method must answer a repeat the same).
 */
export function createPaymePayer(options: PaymePayerOptions): PaymePayer {
  checkTarget(options);
  const clock = options.clock ?? systemClock;
  const maxRepeats = options.maxRepeats ?? 5;
  const ledger = new PaymeLedger();

  async function once(spec: PaymeCallSpec): Promise<PaymeExchange> {
    ledger.called();
    return callPayme(options, spec);
  }

  /** Payme's repeat: until an answer that is not -32400 comes, or the repeats run out. */
  async function answered(spec: PaymeCallSpec): Promise<PaymeExchange> {
    let exchange = await once(spec);
    for (
      let i = 0;
      i < maxRepeats && (exchange.answer === null || errorCode(exchange.answer) === PAYME_CODES.system);
      i++
    ) {
      exchange = await once(spec);
    }
    return exchange;
  }

  function compare(paymeId: string, first: PaymeExchange, other: PaymeExchange, how: string): void {
    if (answerKey(first.answer) !== answerKey(other.answer)) {
      ledger.mismatch(paymeId, first.method, `${how}: ${answerKey(other.answer)} after ${answerKey(first.answer)}`);
    }
  }

  async function write(paymeId: string, spec: PaymeCallSpec, faults: PaymePayFaults): Promise<PaymeExchange> {
    if (faults.lostAnswer) {
      ledger.fault(paymeId, spec.method, 'lost-answer');
      await once(spec);
    }
    if (faults.timeout) {
      ledger.fault(paymeId, spec.method, 'timeout');
      await once({ ...spec, abortAfterMs: options.timeoutAbortMs ?? 5 });
    }
    const copies = Math.max(1, faults.parallel ?? 1);
    if (copies > 1) ledger.fault(paymeId, spec.method, `parallel=${copies}`);
    const [first, ...others] = await Promise.all(Array.from({ length: copies }, () => answered(spec)));
    const answer = first as PaymeExchange;
    for (const other of others) compare(paymeId, answer, other, 'a parallel copy');
    for (let i = 0; i < (faults.duplicate ?? 0); i++) {
      ledger.fault(paymeId, spec.method, 'duplicate');
      compare(paymeId, answer, await answered(spec), 'a repeat');
    }
    if (answer.answer?.result !== undefined) ledger.report(paymeId, answer.answer.result);
    return answer;
  }

  async function perform(paymeId: string, faults: PaymePayFaults) {
    const performSpec = { method: 'PerformTransaction', params: { id: paymeId } };
    if (!faults.cancelWhilePerforming) return write(paymeId, performSpec, faults);
    ledger.fault(paymeId, 'PerformTransaction', 'cancel-while-performing');
    const cancelSpec = { method: 'CancelTransaction', params: { id: paymeId, reason: PAYME_REASONS.executionFailed } };
    const [performed, cancelled] = await Promise.all([
      write(paymeId, performSpec, faults),
      write(paymeId, cancelSpec, faults),
    ]);
    if (performed.answer?.result?.state === 2 && cancelled.answer?.result?.state === -1) {
      ledger.mismatch(
        paymeId,
        'CancelTransaction',
        'answered -1 (before perform) to a cancel racing a perform that answered 2',
      );
    }
    return performed;
  }

  async function expireBetween(paymeId: string, faults: PaymePayFaults): Promise<void> {
    if (options.advanceClock !== undefined) await options.advanceClock(PAYME_TIMEOUT_MS + 60_000);
    const late = await write(paymeId, { method: 'PerformTransaction', params: { id: paymeId } }, faults);
    if (errorCode(late.answer) !== PAYME_CODES.impossible) {
      ledger.mismatch(paymeId, 'PerformTransaction', `12 h after time: expected -31008, got ${answerKey(late.answer)}`);
    }
    const cancel = { method: 'CancelTransaction', params: { id: paymeId, reason: PAYME_REASONS.timeout } };
    await write(paymeId, cancel, faults);
  }

  async function pay(
    given: PaymeTestOrder,
    faults: PaymePayFaults = {},
    steps: PaySteps = {},
  ): Promise<PaymePayResult> {
    const order = checkedOrder(given, 'order');
    const paymeId = newPaymeId();
    const backdate = faults.expire && options.advanceClock === undefined ? PAYME_TIMEOUT_MS + 60_000 : 0;
    const time = clock.now() - backdate;
    const base = { paymeId, account: order.account, amount: order.amount };
    ledger.open(paymeId, order.account, order.amount, time);
    const check = await answered({
      method: 'CheckPerformTransaction',
      params: { amount: order.amount, account: order.account },
    });
    if (check.answer === null) return { ...base, outcome: 'unknown', state: 0 };
    if (check.answer.result?.allow !== true)
      return { ...base, outcome: 'refused', state: 0, refusedWith: errorCode(check.answer) ?? 0 };
    const createParams = { id: paymeId, time, amount: order.amount, account: order.account };
    const created = await write(paymeId, { method: 'CreateTransaction', params: createParams }, faults);
    if (created.answer === null) return { ...base, outcome: 'unknown', state: 0 };
    if (created.answer.result?.state !== 1) {
      return { ...base, outcome: 'refused', state: 0, refusedWith: errorCode(created.answer) ?? 0 };
    }
    await steps.afterFirstStep?.();
    if (faults.expire) await expireBetween(paymeId, faults);
    else await perform(paymeId, faults);
    const final = await answered({ method: 'CheckTransaction', params: { id: paymeId } });
    return finish(base, final);
  }

  function finish(base: Pick<PaymePayResult, 'paymeId' | 'account' | 'amount'>, final: PaymeExchange): PaymePayResult {
    const result = final.answer?.result;
    if (result === undefined) return { ...base, outcome: 'unknown', state: 0 };
    const known = ledger.transaction(base.paymeId);
    if (known?.performTime != null && result.perform_time !== known.performTime) {
      ledger.mismatch(
        base.paymeId,
        'CheckTransaction',
        `perform_time ${result.perform_time} ≠ PerformTransaction's ${known.performTime}`,
      );
    }
    ledger.report(base.paymeId, result);
    const state = typeof result.state === 'number' ? result.state : 0;
    return { ...base, outcome: state === 2 ? 'performed' : state < 0 ? 'cancelled' : 'unknown', state };
  }

  return Object.freeze({ pay, ledger });
}

/** Checks the URL and key every sandbox entry takes. @throws {InvalidOption} */
export function checkTarget(target: PaymeTarget): void {
  let url: URL | null = null;
  try {
    url = new URL(String(target?.merchantUrl));
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidOption('merchantUrl', 'must be an http(s) URL');
  }
  if (typeof target.key !== 'string' || target.key === '') throw new InvalidOption('key', 'must be a non-empty string');
}

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Clock, systemClock } from 'payonce/internal/core/clock.js';
import type { PaySteps } from '../acceptance/pay-steps.js';
import { stableJson } from '../acceptance/stable-json.js';
import { UZUM_CODES, UZUM_STATUS_ATTEMPTS } from './uzum-codes.js';
import { UzumLedger } from './uzum-ledger.js';
import type { UzumPayFaults } from './uzum-pay-faults.js';
import { checkUzumTarget } from './uzum-target.js';
import { checkedUzumOrder, type UzumTestOrder } from './uzum-test-orders.js';
import { uzumErrorCode } from './uzum-verdicts.js';
import { callUzum, type UzumCallSpec, type UzumExchange, type UzumTarget } from './uzum-wire.js';

/** Options of {@link createUzumPayer}. */
export interface UzumPayerOptions extends UzumTarget {
  /** Uzum Bank's clock, for each call's `timestamp`. @default systemClock */
  readonly clock?: Clock;
  /** Repeats of a call left unanswered before the payer gives up on it. @default 5 */
  readonly maxRepeats?: number;
  /** How long the `timeout` fault waits before it stops listening, ms. @default 5 */
  readonly timeoutAbortMs?: number;
  /** The pause between two /status polls, ms. @default 20 */
  readonly statusPollDelayMs?: number;
}

/** How one payment ended, as the final /status reported it. */
export interface UzumPayResult {
  readonly transId: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** Tiyin. */
  readonly amountTiyin: number;
  /** `confirmed`, `reversed`, `refused` (/check or /create answered FAILED), `unknown` (no clear answer). */
  readonly outcome: 'confirmed' | 'reversed' | 'refused' | 'unknown';
  /** The errorCode that refused it. */
  readonly refusedWith?: string;
}

/** A stateful client-side Uzum Bank: pays orders through a merchant's webhooks, with faults, into its ledger. */
export interface UzumPayer {
  /**
   * Pays one order: /check → /create → /confirm (or /reverse with the `reverse` fault) → /status.
   * @throws {InvalidOption} (`orders`) the order has no params or no positive integer amount.
   */
  pay(order: UzumTestOrder, faults?: UzumPayFaults, steps?: PaySteps): Promise<UzumPayResult>;
  /** The books: transactions, money moved, faults injected, breaches seen. */
  readonly ledger: UzumLedger;
}

/** What a repeat must reproduce: the errorCode, or the whole answer but its `timestamp`. */
function keyOf(exchange: UzumExchange): string {
  const code = uzumErrorCode(exchange);
  if (code !== null) return `FAILED ${code}`;
  if (exchange.answer === null) return 'no JSON answer';
  const { timestamp: _timestamp, ...rest } = exchange.answer;
  return stableJson(rest);
}

/** A repeat agrees with the first answer: the same, or "already confirmed / reversed" after that status. */
function agrees(first: UzumExchange, other: UzumExchange): boolean {
  if (keyOf(first) === keyOf(other)) return true;
  const code = uzumErrorCode(other);
  return (
    (first.answer?.status === 'CONFIRMED' && code === UZUM_CODES.alreadyConfirmed) ||
    (first.answer?.status === 'REVERSED' && code === UZUM_CODES.alreadyReversed)
  );
}

/** An answer that says nothing: no answer, not JSON, a 5xx, or 99999 (the merchant's own failure). */
const unclear = (exchange: UzumExchange): boolean =>
  exchange.answer === null || (exchange.status ?? 500) >= 500 || uzumErrorCode(exchange) === UZUM_CODES.system;

/**
 * Creates an Uzum sandbox payer: it plays Uzum Bank's side of the Merchant API against `merchantUrl`, as Uzum
 * Bank does — /check, /create (a new UUID transId, the amount in tiyin), /confirm (or /reverse), each with Basic
 * authorization; after an unclear /confirm or /reverse (no answer, a timeout, 99999) it asks /status up to 10 times
 * until the transaction is CONFIRMED or FAILED (REVERSED for a reverse), sending the call again while /status says
 * CREATED; a final /status is read at the end. Faults (`UzumPayFaults`) drop answers, time out, duplicate and
 * parallelise calls, and reverse instead of confirming; every repeat's answer must agree with the first, and
 * /status with the answers (else a mismatch is recorded in the ledger).
 * @throws {InvalidOption} (`merchantUrl`) not an http(s) URL; (`login`, `password`) empty; (`serviceId`) not a
 *   positive integer.
 * @see https://developer.uzumbank.uz/en/merchant/ (Quick start: status asked up to 10 times on an error or
 *   timeout); fixtures uzum/protocol.json "payment_flow".
 */
export function createUzumPayer(options: UzumPayerOptions): UzumPayer {
  checkUzumTarget(options);
  const clock = options.clock ?? systemClock;
  const maxRepeats = options.maxRepeats ?? 5;
  const ledger = new UzumLedger();

  async function once(spec: UzumCallSpec, poll = false): Promise<UzumExchange> {
    ledger.called(poll);
    return callUzum(options, spec, clock.now());
  }

  /** Uzum Bank's /status polling: until CONFIRMED, FAILED or `done`, at most {@link UZUM_STATUS_ATTEMPTS} times. */
  async function poll(transId: string, done: string): Promise<UzumExchange> {
    let status = await once({ operation: 'status', fields: { transId } }, true);
    for (let i = 1; i < UZUM_STATUS_ATTEMPTS; i++) {
      const reported = status.answer?.status;
      if (!unclear(status) && (reported === done || reported === 'CONFIRMED' || reported === 'FAILED')) break;
      if (!unclear(status) && reported !== 'CREATED') break;
      await sleep(options.statusPollDelayMs ?? 20);
      status = await once({ operation: 'status', fields: { transId } }, true);
    }
    return status;
  }

  /** A write answered clearly: repeated (a /confirm or /reverse after /status says it is not done yet). */
  async function answered(spec: UzumCallSpec, transId: string): Promise<UzumExchange> {
    let exchange = await once(spec);
    const done = spec.operation === 'confirm' ? 'CONFIRMED' : 'REVERSED';
    for (let i = 0; i < maxRepeats && unclear(exchange); i++) {
      if (spec.operation === 'confirm' || spec.operation === 'reverse') {
        const status = await poll(transId, done);
        if (status.answer?.status === done) return status;
      }
      exchange = await once(spec);
    }
    return exchange;
  }

  async function send(spec: UzumCallSpec, transId: string, faults: UzumPayFaults): Promise<UzumExchange> {
    const call = `/${spec.operation}`;
    if (faults.lostAnswer) {
      ledger.fault(transId, call, 'lost-answer');
      await once(spec);
    }
    if (faults.timeout) {
      ledger.fault(transId, call, 'timeout');
      await once({ ...spec, abortAfterMs: options.timeoutAbortMs ?? 5 });
    }
    const copies = Math.max(1, faults.parallel ?? 1);
    if (copies > 1) ledger.fault(transId, call, `parallel=${copies}`);
    const [first, ...others] = await Promise.all(Array.from({ length: copies }, () => answered(spec, transId)));
    const answer = first as UzumExchange;
    const compare = (other: UzumExchange, how: string) => {
      if (!agrees(answer, other) && !sameStatus(answer, other)) {
        ledger.mismatch(transId, call, `${how}: ${keyOf(other)} after ${keyOf(answer)}`);
      }
    };
    for (const other of others) compare(other, 'a parallel copy');
    for (let i = 0; i < (faults.duplicate ?? 0); i++) {
      ledger.fault(transId, call, 'duplicate');
      compare(await answered(spec, transId), 'a repeat');
    }
    if (answer.answer !== null) ledger.report(transId, answer.answer);
    return answer;
  }

  async function pay(given: UzumTestOrder, faults: UzumPayFaults = {}, steps: PaySteps = {}): Promise<UzumPayResult> {
    const order = checkedUzumOrder(given, 'order');
    const transId = randomUUID();
    const base = { transId, params: order.params, amountTiyin: order.amountTiyin };
    ledger.open(transId, order.params, order.amountTiyin);
    let step = await answered({ operation: 'check', fields: { params: order.params } }, transId);
    if (unclear(step)) return { ...base, outcome: 'unknown' };
    if (step.answer?.status !== 'OK') return { ...base, outcome: 'refused', refusedWith: uzumErrorCode(step) ?? '' };
    const createFields = { transId, params: order.params, amount: order.amountTiyin };
    step = await send({ operation: 'create', fields: createFields }, transId, faults);
    if (unclear(step)) return { ...base, outcome: 'unknown' };
    if (step.answer?.status !== 'CREATED') {
      return { ...base, outcome: 'refused', refusedWith: uzumErrorCode(step) ?? '' };
    }
    await steps.afterFirstStep?.();
    const operation = faults.reverse ? 'reverse' : 'confirm';
    if (faults.reverse) ledger.fault(transId, '/reverse', 'reverse instead of confirm');
    const written = await send({ operation, fields: { transId } }, transId, faults);
    return finish(base, written, await once({ operation: 'status', fields: { transId } }));
  }

  function finish(base: Omit<UzumPayResult, 'outcome'>, written: UzumExchange, final: UzumExchange): UzumPayResult {
    if (unclear(final) || final.answer === null) return { ...base, outcome: 'unknown' };
    const time = written.answer?.status === 'CONFIRMED' ? 'confirmTime' : 'reverseTime';
    if (written.answer?.status === final.answer.status && written.answer?.[time] !== final.answer[time]) {
      ledger.mismatch(
        base.transId,
        '/status',
        `${time} ${final.answer[time]} ≠ the answered ${written.answer?.[time]}`,
      );
    }
    ledger.report(base.transId, final.answer);
    const status = final.answer.status;
    if (status === 'CONFIRMED') return { ...base, outcome: 'confirmed' };
    if (status === 'REVERSED') return { ...base, outcome: 'reversed' };
    return { ...base, outcome: 'unknown' };
  }

  return Object.freeze({ pay, ledger });
}

/** A /status answer taken in place of an unclear write agrees with the write's answer when the status and its time do. */
function sameStatus(a: UzumExchange, b: UzumExchange): boolean {
  const status = a.answer?.status;
  if (status === undefined || status !== b.answer?.status) return false;
  const time = status === 'CONFIRMED' ? 'confirmTime' : status === 'REVERSED' ? 'reverseTime' : 'transTime';
  return a.answer?.[time] === b.answer?.[time];
}

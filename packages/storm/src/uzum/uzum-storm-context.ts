import type { UzumCallSpec, UzumExchange, UzumPayer, UzumPayResult } from '@payonce/sandbox/uzum';
import type { UzumStormOrder, UzumStormTarget } from './uzum-storm-target.js';

/**
 * What an Uzum scenario works with beside the common context: the target, fresh orders (each judged at
 * `conclude()`), payers with fault injection, single webhook calls recorded in the scenario's ledger.
 */
export interface UzumStormContext {
  readonly target: UzumStormTarget;
  /** Creates a payable order of `amountTiyin` (default: random whole sums 10…9 999) on the target and tracks it. */
  newOrder(amountTiyin?: number): Promise<UzumStormOrder>;
  /** A payer (Uzum Bank's side, with faults and /status polling) whose ledger is the scenario's. */
  payer(): UzumPayer;
  /** One webhook call as Uzum Bank makes it (forged with `auth`), in the scenario's ledger (/create opens one). */
  call(spec: UzumCallSpec): Promise<UzumExchange>;
  /** A fresh `transId`. */
  newTransId(): string;
  /** Records a failure unless `exchange` is FAILED with an `errorCode` among `codes`; returns whether it was. */
  expectFailed(exchange: UzumExchange, what: string, codes: readonly string[]): boolean;
  /** Records a failure unless `exchange` answered `status`; returns whether it did. */
  expectStatus(exchange: UzumExchange, what: string, status: string): boolean;
}

/** A short text of an answer: `FAILED 10014`, `CONFIRMED {…}`, or why none came. */
export function describeUzumExchange(exchange: UzumExchange): string {
  if (exchange.status === null) return exchange.received;
  const answer = exchange.answer;
  if (answer === null) return `HTTP ${exchange.status}, no JSON`;
  if (answer.status === 'FAILED') return `FAILED ${String(answer.errorCode)}`;
  const { timestamp: _timestamp, serviceId: _serviceId, ...rest } = answer;
  return JSON.stringify(rest);
}

/** The `errorCode` of a FAILED answer as text, or `null`. */
export function uzumCodeOf(exchange: UzumExchange): string | null {
  const answer = exchange.answer;
  return answer?.status === 'FAILED' && answer.errorCode !== undefined ? String(answer.errorCode) : null;
}

/** A short text of how a payment ended, for the notes. */
export function describeUzumPay(result: UzumPayResult): string {
  const refused = result.refusedWith === undefined ? '' : ` with ${result.refusedWith}`;
  return `${result.transId.slice(0, 8)} ${result.outcome}${refused}`;
}

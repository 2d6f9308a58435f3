import type { ClickCallSpec, ClickExchange, ClickPayer, ClickPayResult } from '@payonce/sandbox/click';
import type { ClickStormOrder, ClickStormTarget } from './click-storm-target.js';

/**
 * What a Click scenario works with beside the common context: the target, fresh orders (each judged at
 * `conclude()`), payers with fault injection, single SHOP API calls recorded in the scenario's ledger.
 */
export interface ClickStormContext {
  readonly target: ClickStormTarget;
  /** Creates a payable order of `amountTiyin` (default: random whole sums 10…9 999) on the target and tracks it. */
  newOrder(amountTiyin?: number): Promise<ClickStormOrder>;
  /** A payer (Click's side, with faults) whose ledger is the scenario's. */
  payer(): ClickPayer;
  /** One SHOP API call as Click makes it (a forged one with `signWith: 'wrong-secret'`), in the scenario's ledger. */
  call(spec: ClickCallSpec): Promise<ClickExchange>;
  /** A fresh `click_trans_id`. */
  newTransId(): number;
  /** Records a failure unless `exchange` answered an `error` among `codes`; returns whether it did. */
  expectError(exchange: ClickExchange, what: string, codes: readonly number[]): boolean;
}

/** A short text of an answer: `error -9, merchant_prepare_id 3`, or why none came. */
export function describeClickExchange(exchange: ClickExchange): string {
  if (exchange.status === null) return exchange.received;
  if (exchange.answer === null) return `HTTP ${exchange.status}, no JSON`;
  const { error, merchant_prepare_id: prepared, merchant_confirm_id: confirmed } = exchange.answer;
  const id =
    confirmed !== undefined ? `, confirm id ${confirmed}` : prepared !== undefined ? `, prepare id ${prepared}` : '';
  return `error ${JSON.stringify(error)}${id}`;
}

/** The `error` of an HTTP 200 JSON answer, or `null`. */
export function clickErrorOf(exchange: ClickExchange): number | null {
  const error = exchange.status === 200 ? exchange.answer?.error : undefined;
  return typeof error === 'number' ? error : null;
}

/** A short text of how a payment ended, for the notes. */
export function describeClickPay(result: ClickPayResult): string {
  const refused = result.refusedWith === undefined ? '' : ` with ${result.refusedWith}`;
  return `${result.clickTransId} ${result.outcome}${refused}`;
}

import type { PaymeCallSpec } from '@payonce/sandbox/internal/payme/payme-rpc.js';
import type { PaymeExchange, PaymePayer, PaymeRpcAnswer } from '@payonce/sandbox/payme';
import type { PaymeScenarioResult } from './payme-scenario.js';
import type { PaymeStormOrder, PaymeStormTarget } from './payme-storm-target.js';

/**
 * What a Payme scenario works with: the target, fresh orders (each judged at `conclude()`), payers with fault
 * injection, single calls, and a deadline for every wait. Every call the scenario makes is in its ledger.
 */
export interface PaymeStormContext {
  readonly target: PaymeStormTarget;
  /** Milliseconds left before the scenario's deadline. */
  timeLeftMs(): number;
  /** Payme's clock now (the target's clock when it exposes one), epoch ms. */
  now(): number;
  /** Creates a payable order of `amount` tiyin (default: random 1 000…999 900) on the target and tracks it. */
  newOrder(amount?: number): Promise<PaymeStormOrder>;
  /** A payer (Payme's side with faults) whose ledger is the scenario's; `moveClock` lets `expire` move the target's. */
  payer(options?: { moveClock?: boolean }): PaymePayer;
  /** One Merchant API call as Payme makes it, recorded in the scenario's ledger (Create opens a transaction). */
  call(spec: PaymeCallSpec): Promise<PaymeExchange>;
  /** A fresh Payme transaction id. */
  newId(): string;
  /** Records `reason` as a failure unless `condition` holds; returns `condition`. */
  expect(condition: boolean, reason: string): boolean;
  /** Records a failure unless `exchange` answered error `code` (or one `accept` takes); returns whether it did. */
  expectError(exchange: PaymeExchange, what: string, code: number, accept?: (code: number) => boolean): boolean;
  /** Adds a line to the scenario's notes. */
  note(text: string): void;
  /** Waits for every tracked order to settle, judges them and returns the result. */
  conclude(): Promise<PaymeScenarioResult>;
  /** A `skip` result saying why the scenario cannot run against this target. */
  skip(reason: string): PaymeScenarioResult;
}

/** A short text of an answer: `result {…}`, `error -31008`, or why none came. */
export function describeExchange(exchange: PaymeExchange): string {
  const answer: PaymeRpcAnswer | null = exchange.answer;
  if (answer === null) return exchange.status === null ? exchange.received : `HTTP ${exchange.status}, no JSON`;
  if (answer.error !== undefined) return `error ${answer.error.code}`;
  return `result ${JSON.stringify(answer.result)}`;
}

/** The error code of an exchange's answer, or `null`. */
export function codeOf(exchange: PaymeExchange): number | null {
  const code = exchange.answer?.error?.code;
  return typeof code === 'number' ? code : null;
}

/** The `state` of an exchange's result, or `null`. */
export function stateOf(exchange: PaymeExchange): number | null {
  const state = exchange.answer?.result?.state;
  return typeof state === 'number' ? state : null;
}

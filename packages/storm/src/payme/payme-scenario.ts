import type {
  ProviderScenario,
  ProviderScenarioCounts,
  ProviderScenarioResult,
} from '../provider/provider-scenario.js';
import type { PaymeStormContext } from './payme-storm-context.js';

/** What the Payme storm found for one order a scenario touched. */
export interface PaymeOrderJudgement {
  /** The order's `account` as JSON, e.g. `{"order_id":"storm-…"}`. */
  readonly account: string;
  /** Payme transaction ids the storm sent for this order. */
  readonly paymeIds: readonly string[];
  /** Transactions Payme saw reach state 2 (money taken), from its ledger. */
  readonly performs: number;
  /** Transactions Payme saw reach state -2 (money given back), from its ledger. */
  readonly refunds: number;
  /** Debits minus refunds in Payme's ledger, tiyin. */
  readonly payerTiyin: number;
  /** Performed minus refunded, tiyin, as the merchant's GetStatement reports the order's transactions. */
  readonly merchantTiyin: number;
  /** As the target reports them. */
  readonly paidTransitions: number;
  readonly fulfilments: number;
  readonly targetRefunds: number;
  /** Broken rules; empty when the order passes. */
  readonly problems: readonly string[];
}

/** The numbers of the Payme storm table for one scenario. */
export interface PaymeScenarioCounts extends ProviderScenarioCounts {
  /** Transactions performed (state 2 reached), by Payme's ledger. */
  readonly performs: number;
}

/** The result of one Payme scenario. */
export type PaymeScenarioResult = ProviderScenarioResult<PaymeScenarioCounts, PaymeOrderJudgement>;

/**
 * One Payme storm scenario: `run` plays Payme against the target through `ctx` (fresh orders, its own ledger) and
 * ends with `ctx.conclude()`, which judges every order it touched by the common rule (at most one performed
 * transaction, one paid transition, one fulfilment; Payme's money = the merchant's GetStatement; nothing lost).
 * Numbered 1…11 as docs/storm.md "Payme storm" lists them.
 */
export type PaymeScenario = ProviderScenario<PaymeStormContext, PaymeScenarioResult>;

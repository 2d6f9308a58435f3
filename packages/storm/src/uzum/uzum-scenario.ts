import type { BaseStormContext } from '../provider/base-storm-context.js';
import type {
  ProviderScenario,
  ProviderScenarioCounts,
  ProviderScenarioResult,
} from '../provider/provider-scenario.js';
import type { UzumStormContext } from './uzum-storm-context.js';

/** What the Uzum storm found for one order a scenario touched. */
export interface UzumOrderJudgement {
  /** The order's `params` as JSON, e.g. `{"account":"storm-uzum-…"}`. */
  readonly params: string;
  /** Uzum `transId`s the storm sent for this order. */
  readonly transIds: readonly string[];
  /** Transactions Uzum Bank saw CONFIRMED (money taken), from its ledger. */
  readonly confirms: number;
  /** Confirmed transactions later REVERSED (money given back), from its ledger. */
  readonly refunds: number;
  /** Debits minus refunds in Uzum Bank's ledger, tiyin. */
  readonly payerTiyin: number;
  /** Tiyin the merchant holds as paid for the order (`readOrder().heldTiyin`). */
  readonly merchantTiyin: number;
  readonly paidTransitions: number;
  readonly fulfilments: number;
  readonly targetRefunds: number;
  /** Broken rules; empty when the order passes. */
  readonly problems: readonly string[];
}

/** The numbers of the Uzum storm table for one scenario. */
export interface UzumScenarioCounts extends ProviderScenarioCounts {
  /** Transactions confirmed (CONFIRMED reached), by Uzum Bank's ledger. */
  readonly confirms: number;
}

/** The result of one Uzum scenario. */
export type UzumScenarioResult = ProviderScenarioResult<UzumScenarioCounts, UzumOrderJudgement>;

/** The context an Uzum scenario gets (with the common part every provider storm has). */
export type UzumContext = UzumStormContext & BaseStormContext<UzumScenarioResult>;

/**
 * One Uzum storm scenario: `run` plays Uzum Bank against the target through `ctx` and ends with `ctx.conclude()`,
 * which judges every order it touched (at most one confirmed transaction, one paid transition, one fulfilment; Uzum
 * Bank's ledger = the merchant's money; nothing lost). Numbered 1…10 as docs/storm.md "Uzum storm" lists them.
 */
export type UzumScenario = ProviderScenario<UzumContext, UzumScenarioResult>;

import type { BaseStormContext } from '../provider/base-storm-context.js';
import type {
  ProviderScenario,
  ProviderScenarioCounts,
  ProviderScenarioResult,
} from '../provider/provider-scenario.js';
import type { ClickStormContext } from './click-storm-context.js';

/** What the Click storm found for one order a scenario touched. */
export interface ClickOrderJudgement {
  readonly merchantTransId: string;
  /** `click_trans_id`s the storm sent for this order. */
  readonly clickTransIds: readonly number[];
  /** Payments Click saw completed (money taken), from its ledger. */
  readonly completes: number;
  /** Tiyin Click debited for the order, by its ledger. */
  readonly payerTiyin: number;
  /** Tiyin the merchant holds as paid for the order (`readOrder().heldTiyin`). */
  readonly merchantTiyin: number;
  readonly paidTransitions: number;
  readonly fulfilments: number;
  /** Broken rules; empty when the order passes. */
  readonly problems: readonly string[];
}

/** The numbers of the Click storm table for one scenario. */
export interface ClickScenarioCounts extends ProviderScenarioCounts {
  /** Payments completed (Complete answered 0), by Click's ledger. */
  readonly completes: number;
}

/** The result of one Click scenario. */
export type ClickScenarioResult = ProviderScenarioResult<ClickScenarioCounts, ClickOrderJudgement>;

/** The context a Click scenario gets (with the common part every provider storm has). */
export type ClickContext = ClickStormContext & BaseStormContext<ClickScenarioResult>;

/**
 * One Click storm scenario: `run` plays Click against the target through `ctx` and ends with `ctx.conclude()`,
 * which judges every order it touched (at most one completed payment, one paid transition, one fulfilment; Click's
 * ledger = the merchant's money; nothing lost). Numbered 1…10 as docs/storm.md "Click storm" lists them.
 */
export type ClickScenario = ProviderScenario<ClickContext, ClickScenarioResult>;

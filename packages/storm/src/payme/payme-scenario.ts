import type { DuplicateLevel, Verdict } from '../scenario.js';
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
export interface PaymeScenarioCounts {
  /** Merchant API calls sent (repeats, copies, forged calls and GetStatement included). */
  readonly calls: number;
  /** Faults Payme injected (lost answers, timeouts, duplicates, parallel copies, …). */
  readonly faults: number;
  /** Transactions performed (state 2 reached), by Payme's ledger. */
  readonly performs: number;
  readonly paidTransitions: number;
  readonly fulfilments: number;
}

/** The result of one Payme scenario. */
export interface PaymeScenarioResult {
  readonly id: number;
  readonly name: string;
  readonly defends: DuplicateLevel;
  readonly criterion: string;
  readonly verdict: Verdict;
  /** Why it failed or was skipped; empty on a pass. */
  readonly reasons: readonly string[];
  /** What was seen on the way (answers, faults). */
  readonly notes: readonly string[];
  readonly counts: PaymeScenarioCounts;
  readonly orders: readonly PaymeOrderJudgement[];
  readonly durationMs: number;
}

/**
 * One Payme storm scenario: `run` plays Payme against the target through `ctx` (fresh orders, its own ledger) and
 * ends with `ctx.conclude()`, which judges every order it touched by the common rule (at most one performed
 * transaction, one paid transition, one fulfilment; Payme's money = the merchant's GetStatement; nothing lost).
 */
export interface PaymeScenario {
  /** 1…11, docs/storm.md "Payme storm". */
  readonly id: number;
  readonly name: string;
  readonly defends: DuplicateLevel;
  /** The pass rule in plain language. */
  readonly criterion: string;
  /** Runs alone, after the others: it kills the target or moves its clock. */
  readonly alone?: boolean;
  run(ctx: PaymeStormContext): Promise<PaymeScenarioResult>;
}

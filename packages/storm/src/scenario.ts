import type { StormCapability } from './app/storm-app-adapter.js';
import type { ScenarioContext } from './scenario-context.js';
import type { StormTimelineEvent } from './storm-timeline.js';

/**
 * The four kinds of "duplicate" of docs/design.md §1, one of which each scenario defends against:
 * repeated HTTP request (Idempotency-Key), repeated payment attempt (one active attempt per order), repeated charge
 * (provider idempotency key, reconciliation of unknown results), repeated business effect (webhook receipts,
 * forward-only transitions, outbox and effect ledger).
 */
export type DuplicateLevel =
  | 'repeated HTTP request'
  | 'repeated payment attempt'
  | 'repeated charge'
  | 'repeated business effect';

/** `pass`, `fail`, or `skip` (the scenario could not run here, e.g. no admin token; says why). */
export type Verdict = 'pass' | 'fail' | 'skip';

/** What the storm found for one order the scenario touched (common rule of docs/design.md §9). */
export interface OrderJudgement {
  readonly orderId: string;
  /** Order status as the service last showed it (`null` when it could not be read). */
  readonly status: string | null;
  /** Charges the provider made for this order (sandbox order ledger). */
  readonly charges: number;
  readonly refunds: number;
  /** Provider payments created for this order. */
  readonly paymentIds: readonly string[];
  /** Payment attempts the service shows. */
  readonly attempts: number;
  readonly paidTransitions: number;
  readonly fulfilments: number;
  /** Status of each of the order's outbox jobs. */
  readonly jobs: readonly string[];
  /** Webhook requests the sandbox sent about this order's payments. */
  readonly deliveries: number;
  /** Of those, copies of an event already sent before (retries, duplicates, parallel copies, resends). */
  readonly duplicates: number;
  /** Broken rules; empty when the order passes the common rule. */
  readonly problems: readonly string[];
}

/** The numbers of the storm table for one scenario (sums over its orders, plus requests the storm crafted). */
export interface ScenarioCounts {
  /** Webhook requests sent to the service: by the sandbox for the scenario's payments and crafted by the storm. */
  readonly deliveriesSent: number;
  /** Copies of an event already delivered before. */
  readonly duplicates: number;
  readonly charges: number;
  readonly paidTransitions: number;
  readonly fulfilments: number;
}

/** The result of one scenario: verdict, why, the orders it touched and the counts of the table. */
export interface ScenarioResult {
  readonly id: number;
  readonly name: string;
  readonly defends: DuplicateLevel;
  readonly criterion: string;
  readonly verdict: Verdict;
  /** Why it failed (or was skipped); empty on a pass. */
  readonly reasons: readonly string[];
  /** What happened on the way (answers seen, where a kill landed), for the report. */
  readonly notes: readonly string[];
  readonly counts: ScenarioCounts;
  readonly orders: readonly OrderJudgement[];
  /** The random choices the scenario drew from the run's seed, in order (`amount 4521`, `killed replica 1`). */
  readonly faultPlan: readonly string[];
  readonly durationMs: number;
  /**
   * What happened to the scenario's orders, in time order: the storm's requests to the app, the app's requests to
   * the provider (with the faults injected), webhook deliveries with their answers, the orders' changes as the
   * adapter reported them. Absent in the storms that do not record one.
   */
  readonly timeline?: readonly StormTimelineEvent[];
}

/**
 * One conformance scenario of docs/design.md §9: `run` drives a live service and sandbox over HTTP through `ctx` (fresh
 * orders of a fresh customer, so scenarios are independent) and ends with `ctx.conclude()`, which applies the common
 * rule to every order it touched (at most one charge, one paid transition, one fulfilment; nothing lost) on top of
 * the scenario's own criterion.
 */
export interface Scenario {
  /** Number in docs/design.md §9 (1…18), or 19…22 for the replica scenarios. */
  readonly id: number;
  readonly name: string;
  readonly defends: DuplicateLevel;
  /** The pass rule in plain language. */
  readonly criterion: string;
  /** What the app adapter must offer for the scenario to run; without it the scenario is skipped, saying so. */
  readonly needs?: readonly StormCapability[];
  run(ctx: ScenarioContext): Promise<ScenarioResult>;
}

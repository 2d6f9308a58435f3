import type { Scenario } from './scenario.js';
import {
  doublePayClick,
  lostResponse,
  parallelCreate,
  refreshWhilePending,
  sameKeyDifferentAmount,
  sameKeySameParams,
  twoTabs,
} from './scenarios/checkout-scenarios.js';
import { badSignature, foreignEvent, forgedEventRejected } from './scenarios/forgery-scenarios.js';
import { crashBeforeFulfilment, jobRerun, unknownReconciled } from './scenarios/recovery-scenarios.js';
import {
  duplicateWaitsOnOtherReplica,
  replicaKilledMidFulfilment,
  sameCheckoutTwoReplicas,
  sameWebhookEveryReplica,
} from './scenarios/replica-scenarios.js';
import {
  paidThenRefunded,
  sameNotificationStorm,
  sameWebhookTwice,
  twoEventIds,
  webhookBeforeResponse,
} from './scenarios/webhook-scenarios.js';

/**
 * Every conformance scenario, by number: 1…18 of docs/design.md §9, then 19…22 for what several replicas of the service
 * bring (skipped against a single service). @see docs/storm.md for each one's criterion.
 */
export const ALL_SCENARIOS: readonly Scenario[] = Object.freeze(
  [
    doublePayClick,
    twoTabs,
    parallelCreate,
    refreshWhilePending,
    lostResponse,
    sameKeySameParams,
    sameKeyDifferentAmount,
    sameWebhookTwice,
    twoEventIds,
    badSignature,
    foreignEvent,
    crashBeforeFulfilment,
    webhookBeforeResponse,
    jobRerun,
    unknownReconciled,
    sameNotificationStorm,
    paidThenRefunded,
    forgedEventRejected,
    sameCheckoutTwoReplicas,
    sameWebhookEveryReplica,
    replicaKilledMidFulfilment,
    duplicateWaitsOnOtherReplica,
  ].sort((a, b) => a.id - b.id),
);

/** Scenario 12 kills the service: it runs alone, after all others. */
export const CRASH_SCENARIO_ID = 12;

/**
 * Scenarios that kill the app or a replica: they run alone, after all others (12 first). 16 restarts the app before
 * its re-sends when the app can be restarted, so receipts kept only in memory fail it.
 */
export const KILLING_SCENARIO_IDS: readonly number[] = Object.freeze([CRASH_SCENARIO_ID, 16, 21]);

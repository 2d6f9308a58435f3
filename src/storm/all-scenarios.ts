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
  paidThenRefunded,
  sameNotificationStorm,
  sameWebhookTwice,
  twoEventIds,
  webhookBeforeResponse,
} from './scenarios/webhook-scenarios.js';

/** Every conformance scenario of docs/design.md §9, by number (1…18). @see docs/storm.md for each one's criterion. */
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
  ].sort((a, b) => a.id - b.id),
);

/** Scenario 12 kills the service: it runs alone, after all others. */
export const CRASH_SCENARIO_ID = 12;

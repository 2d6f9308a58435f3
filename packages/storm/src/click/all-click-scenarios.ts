import { clickDoublePay, clickDuplicates, clickLostAnswer, clickParallelCopies } from './click-pay-scenarios.js';
import { clickForeignAmountAccount, clickForgedAuth, clickOutOfOrder } from './click-protocol-scenarios.js';
import { clickCrashMidComplete, clickFailedPayment, clickJobRerun } from './click-recovery-scenarios.js';
import type { ClickScenario } from './click-scenario.js';

/** Every Click storm scenario, by number (docs/storm.md "Click storm"). */
export const ALL_CLICK_SCENARIOS: readonly ClickScenario[] = Object.freeze([
  clickDoublePay,
  clickParallelCopies,
  clickLostAnswer,
  clickDuplicates,
  clickOutOfOrder,
  clickForgedAuth,
  clickForeignAmountAccount,
  clickCrashMidComplete,
  clickFailedPayment,
  clickJobRerun,
]);

import { paymeDoublePay, paymeDuplicates, paymeLostAnswer, paymeParallelCopies } from './payme-pay-scenarios.js';
import { paymeForeignAmountAccount, paymeForgedAuth, paymeOutOfOrder } from './payme-protocol-scenarios.js';
import {
  paymeCancelAfterPerform,
  paymeCrashMidPerform,
  paymeJobRerun,
  paymeTimeout,
} from './payme-recovery-scenarios.js';
import type { PaymeScenario } from './payme-scenario.js';

/** Every Payme storm scenario, by number (docs/storm.md "Payme storm"). */
export const ALL_PAYME_SCENARIOS: readonly PaymeScenario[] = Object.freeze([
  paymeDoublePay,
  paymeParallelCopies,
  paymeLostAnswer,
  paymeDuplicates,
  paymeOutOfOrder,
  paymeForgedAuth,
  paymeForeignAmountAccount,
  paymeCrashMidPerform,
  paymeTimeout,
  paymeCancelAfterPerform,
  paymeJobRerun,
]);

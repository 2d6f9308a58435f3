import { uzumDoublePay, uzumDuplicates, uzumLostAnswer, uzumParallelCopies } from './uzum-pay-scenarios.js';
import { uzumForeignAmountAccount, uzumForgedAuth, uzumOutOfOrder } from './uzum-protocol-scenarios.js';
import { uzumCrashMidConfirm, uzumJobRerun, uzumReverse } from './uzum-recovery-scenarios.js';
import type { UzumScenario } from './uzum-scenario.js';

/** Every Uzum storm scenario, by number (docs/storm.md "Uzum storm"). */
export const ALL_UZUM_SCENARIOS: readonly UzumScenario[] = Object.freeze([
  uzumDoublePay,
  uzumParallelCopies,
  uzumLostAnswer,
  uzumDuplicates,
  uzumOutOfOrder,
  uzumForgedAuth,
  uzumForeignAmountAccount,
  uzumCrashMidConfirm,
  uzumReverse,
  uzumJobRerun,
]);

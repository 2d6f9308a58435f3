export { ALL_PAYME_SCENARIOS } from './all-payme-scenarios.js';
export { appPaymeTarget } from './app-payme-target.js';
export type { PaymeOrderJudgement, PaymeScenario, PaymeScenarioCounts, PaymeScenarioResult } from './payme-scenario.js';
export type { PaymeStormContext } from './payme-storm-context.js';
export { formatPaymeStormTable, paymeStormHtml, paymeStormSummary } from './payme-storm-table.js';
export type { PaymeOrderCounts, PaymeStormOrder, PaymeStormTarget } from './payme-storm-target.js';
export { type AppPaymeStormOptions, runAppPaymeStorm } from './run-app-payme-storm.js';
export {
  type PaymeStormOptions,
  type PaymeStormProgress,
  type PaymeStormReport,
  runPaymeStorm,
  selectPaymeScenarios,
} from './run-payme-storm.js';
export {
  type ClosablePaymeTarget,
  type ServicePaymeTargetOptions,
  servicePaymeTarget,
} from './service-payme-target.js';

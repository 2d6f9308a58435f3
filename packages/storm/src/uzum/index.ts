export { ALL_UZUM_SCENARIOS } from './all-uzum-scenarios.js';
export { type AppUzumCredentials, appUzumTarget } from './app-uzum-target.js';
export { type AppUzumStormOptions, runAppUzumStorm } from './run-app-uzum-storm.js';
export {
  runUzumStorm,
  type UzumStormOptions,
  type UzumStormProgress,
  type UzumStormReport,
} from './run-uzum-storm.js';
export {
  type ClosableUzumTarget,
  type ServiceUzumTargetOptions,
  serviceUzumTarget,
} from './service-uzum-target.js';
export type {
  UzumContext,
  UzumOrderJudgement,
  UzumScenario,
  UzumScenarioCounts,
  UzumScenarioResult,
} from './uzum-scenario.js';
export type { UzumStormContext } from './uzum-storm-context.js';
export { formatUzumStormTable, uzumStormHtml, uzumStormSummary } from './uzum-storm-table.js';
export type { UzumStormOrder, UzumStormTarget } from './uzum-storm-target.js';

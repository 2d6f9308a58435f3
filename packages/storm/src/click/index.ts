export { ALL_CLICK_SCENARIOS } from './all-click-scenarios.js';
export { appClickTarget } from './app-click-target.js';
export type {
  ClickContext,
  ClickOrderJudgement,
  ClickScenario,
  ClickScenarioCounts,
  ClickScenarioResult,
} from './click-scenario.js';
export type { ClickStormContext } from './click-storm-context.js';
export { clickStormHtml, clickStormSummary, formatClickStormTable } from './click-storm-table.js';
export type { ClickStormOrder, ClickStormTarget } from './click-storm-target.js';
export { type AppClickStormOptions, runAppClickStorm } from './run-app-click-storm.js';
export {
  type ClickStormOptions,
  type ClickStormProgress,
  type ClickStormReport,
  runClickStorm,
} from './run-click-storm.js';
export {
  type ClosableClickTarget,
  type ServiceClickTargetOptions,
  serviceClickTarget,
} from './service-click-target.js';

/**
 * `payonce/storm`: the conformance scenarios of docs/design.md §9, run against a live service and sandbox over HTTP
 * (`payonce storm --target URL --provider URL`). @see docs/storm.md.
 */
export { ALL_SCENARIOS } from './all-scenarios.js';
export { type ReferenceServiceOptions, referenceServiceAdapter } from './app/reference-service-adapter.js';
export {
  type AppOrderAnswer,
  type AppPaymentAnswer,
  hasCapability,
  type StormAppAdapter,
  type StormAppAdapterModule,
  type StormAppCapabilities,
  type StormAppSetup,
  type StormCall,
  type StormCapability,
  type StormOrderState,
  type StormOrderStatus,
} from './app/storm-app-adapter.js';
export type {
  StormAppClick,
  StormAppPayme,
  StormAppProviders,
  StormAppTelegram,
  StormAppUzum,
  StormProviderSecrets,
  StormTelegramSecrets,
} from './app/storm-app-providers.js';
export { type HtmlOrder, type HtmlRun, type HtmlScenario, htmlReport } from './html-report.js';
export * from './payme/index.js';
export {
  type BrokenOrder,
  type RepeatedScenario,
  type RepeatStormOptions,
  repeatStorm,
  type StormRepeatReport,
  summarizeRuns,
} from './repeat-storm.js';
export * from './replay/index.js';
export { runStorm, type StormOptions, StormTargetUnavailable, selectScenarios } from './run-storm.js';
export type { DuplicateLevel, OrderJudgement, Scenario, ScenarioCounts, ScenarioResult, Verdict } from './scenario.js';
export type { ScenarioContext } from './scenario-context.js';
export { type PidKillOptions, pidKillControl, type ServiceControl } from './service-control.js';
export { stormHtmlReport } from './storm-html.js';
export { stormHtmlErrorReport } from './storm-html-error.js';
export { type JunitCase, type JunitRun, stormJunitErrorXml, stormJunitXml, stormJunitXmlRuns } from './storm-junit.js';
export type { StormProgress, StormReport } from './storm-report.js';
export { formatStormTable, stormSummary } from './storm-table.js';
export { redactSecrets, type StormTimelineEvent, type TimelineActor } from './storm-timeline.js';

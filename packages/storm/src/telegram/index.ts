export { ALL_TELEGRAM_SCENARIOS } from './all-telegram-scenarios.js';
export { appTelegramTarget } from './app-telegram-target.js';
export { type AppTelegramStormOptions, runAppTelegramStorm } from './run-app-telegram-storm.js';
export {
  runTelegramStorm,
  type TelegramStormOptions,
  type TelegramStormProgress,
  type TelegramStormReport,
} from './run-telegram-storm.js';
export {
  type ClosableTelegramTarget,
  type ServiceTelegramTargetOptions,
  serviceTelegramTarget,
} from './service-telegram-target.js';
export { judgeTelegramOrder, type TelegramOrderSnapshot, telegramCharges } from './telegram-judge.js';
export type {
  TelegramContext,
  TelegramOrderJudgement,
  TelegramScenario,
  TelegramScenarioCounts,
  TelegramScenarioResult,
  TelegramStormContext,
  TelegramStormOrder,
} from './telegram-scenario.js';
export type { TelegramStormSandbox } from './telegram-storm-sandbox.js';
export { formatTelegramStormTable, telegramStormHtml, telegramStormSummary } from './telegram-storm-table.js';
export type { TelegramStormTarget } from './telegram-storm-target.js';
export { orderIdOfUpdate, TelegramUpdatePump, type UpdateDeliverer } from './telegram-update-pump.js';

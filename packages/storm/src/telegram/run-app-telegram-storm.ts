import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import { runAppProviderStorm } from '../provider/run-app-provider-storm.js';
import type { ProviderStormRunOptions } from '../provider/run-provider-storm.js';
import { ALL_TELEGRAM_SCENARIOS } from './all-telegram-scenarios.js';
import { appTelegramTarget } from './app-telegram-target.js';
import { runTelegramStorm, type TelegramStormReport } from './run-telegram-storm.js';
import type { TelegramScenarioResult } from './telegram-scenario.js';
import type { TelegramStormSandbox } from './telegram-storm-sandbox.js';

/** Options of {@link runAppTelegramStorm}: the app, the Telegram sandbox it was given, and the run's options. */
export interface AppTelegramStormOptions extends ProviderStormRunOptions<TelegramScenarioResult> {
  /** The app under test, through its storm adapter (its `providers.telegram` names the webhook). */
  readonly app: StormAppAdapter;
  /** The Telegram sandbox whose Bot API the app was given (`PAYONCE_STORM_TELEGRAM_API_URL`), with no webhook set. */
  readonly sandbox: TelegramStormSandbox;
  /** The webhook secret the app was given (`PAYONCE_STORM_TELEGRAM_WEBHOOK_SECRET`). */
  readonly secretToken: string;
}

/**
 * The Telegram storm against an app through its adapter (`payonce storm --adapter FILE --provider telegram`): the
 * target is {@link appTelegramTarget}, judged as {@link runTelegramStorm} judges; run by `runAppProviderStorm` (an
 * adapter without `providers.telegram` gets every selected scenario SKIPPED with the reason, and nothing is sent; the
 * adapter is closed at the end). Scenarios the adapter cannot express (the refund without `requestRefund`, the job
 * re-run without jobs, the crash without `crashAndRestart`) are skipped with the reason.
 * @throws {InvalidOption} a bad `only`, `timeoutMs` or `concurrency`, an empty secret token.
 * @throws {StormTargetUnavailable} the app's webhook does not answer a bare update 200 and a wrong secret 401.
 * @see docs/storm-your-app.md "Telegram".
 */
export function runAppTelegramStorm(options: AppTelegramStormOptions): Promise<TelegramStormReport> {
  const { app } = options;
  return runAppProviderStorm(app, options.only, {
    provider: 'telegram',
    name: 'Telegram',
    declared: app.providers?.telegram !== undefined,
    lacking: 'no Telegram webhook (providers.telegram.webhookUrl)',
    scenarios: ALL_TELEGRAM_SCENARIOS,
    zero: { calls: 0, faults: 0, charges: 0, paidTransitions: 0, fulfilments: 0 },
    skipped: (common) => ({ ...common, endpoint: '' }),
    run: () => runTelegramStorm({ ...options, target: appTelegramTarget(app, options.secretToken) }),
  });
}

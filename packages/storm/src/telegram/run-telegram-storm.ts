import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { ProviderStormProgress } from '../provider/provider-scenario.js';
import {
  type ProviderStormReport,
  type ProviderStormRunOptions,
  runProviderStorm,
} from '../provider/run-provider-storm.js';
import { StormTargetUnavailable } from '../run-storm.js';
import { ALL_TELEGRAM_SCENARIOS } from './all-telegram-scenarios.js';
import type { TelegramScenarioResult } from './telegram-scenario.js';
import { TelegramScenarioRun } from './telegram-scenario-run.js';
import type { TelegramStormSandbox } from './telegram-storm-sandbox.js';
import type { TelegramStormTarget } from './telegram-storm-target.js';
import { TelegramUpdatePump } from './telegram-update-pump.js';
import { postUpdate } from './telegram-webhook-post.js';

/** Options of {@link runTelegramStorm}: the target, Telegram (the sandbox), and `only`, `timeoutMs`, `concurrency`. */
export interface TelegramStormOptions extends ProviderStormRunOptions<TelegramScenarioResult> {
  /** The bot under test (`serviceTelegramTarget` for a payonce service, or your own). */
  readonly target: TelegramStormTarget;
  /**
   * Telegram: the sandbox whose Bot API the bot calls (its `--telegram-api-url`), with no webhook set: the storm
   * takes its updates with `getUpdates` and delivers them itself, with faults.
   */
  readonly sandbox: TelegramStormSandbox;
}

/** What `runTelegramStorm` reports while it runs. */
export type TelegramStormProgress = ProviderStormProgress<TelegramScenarioResult>;

/** The result of one Telegram storm run (also the JSON report of `payonce storm --provider telegram --report`). */
export type TelegramStormReport = ProviderStormReport<'telegram', TelegramScenarioResult>;

/** A bare update (no object: nothing to do) must be answered 200, and the same with a wrong secret 401. */
async function preflight(target: TelegramStormTarget): Promise<void> {
  const update = { update_id: 3_000_000_000_000 + Math.floor(Math.random() * 1e9) };
  const forged = await postUpdate(target.webhookUrl, target.secretToken, update, { secretToken: 'storm_preflight_x' });
  const real = await postUpdate(target.webhookUrl, target.secretToken, update);
  if (real === 200 && forged === 401) return;
  const why =
    real === 401
      ? 'refused the secret token (401): give the --telegram-secret-token the bot was started with'
      : `answered a bare update ${real ?? 'nothing'} (expected 200) and a wrong secret token ${forged ?? 'nothing'} (expected 401)`;
  throw new StormTargetUnavailable(`the Telegram webhook ${target.webhookUrl} ${why}`);
}

function checkOptions(options: TelegramStormOptions): void {
  const { target, sandbox } = options;
  if (typeof target !== 'object' || target === null || typeof target.webhookUrl !== 'string') {
    throw new InvalidOption('target', 'must be a Telegram storm target');
  }
  for (const name of ['createOrder', 'sendInvoice', 'readOrder'] as const) {
    if (typeof target[name] !== 'function') throw new InvalidOption('target', `must have ${name}()`);
  }
  if (typeof sandbox !== 'object' || sandbox === null || typeof sandbox.pay !== 'function') {
    throw new InvalidOption('sandbox', 'must be a running Telegram sandbox (createTelegramSandbox)');
  }
}

/**
 * Runs the Telegram storm: plays Telegram (the sandbox's Bot API and its customer paying invoices, the webhook
 * delivering each update with copies in parallel, non-2xx answers and redeliveries, repeated and foreign
 * `successful_payment`s, a paid order's pre-checkout, a refund asked twice, a job re-run, a kill mid-update) against
 * a bot's webhook and judges every order each scenario touched: at most one charge, one paid transition, one
 * fulfilment; Telegram's ledger equal to the stars the merchant holds; nothing lost. Scenarios the target cannot
 * express are skipped with the reason. The run does not throw for a failing target.
 * @throws {InvalidOption} a bad target or sandbox, `only`, `timeoutMs` (1 000…600 000) or `concurrency` (1…8).
 * @throws {StormTargetUnavailable} the webhook does not answer a bare update 200 and a wrong secret 401.
 * @see docs/storm.md "Telegram storm"; https://core.telegram.org/bots/api#setwebhook
 */
export async function runTelegramStorm(options: TelegramStormOptions): Promise<TelegramStormReport> {
  checkOptions(options);
  const { target, sandbox } = options;
  const fallback = async (update: Parameters<typeof postUpdate>[2]) => {
    for (let i = 0; i < 20; i += 1) {
      const status = await postUpdate(target.webhookUrl, target.secretToken, update);
      if (status !== null && status >= 200 && status < 300) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const pump = new TelegramUpdatePump({ url: sandbox.url, token: sandbox.token }, fallback);
  pump.start();
  try {
    return await runProviderStorm(
      {
        provider: 'telegram',
        name: 'Telegram',
        all: ALL_TELEGRAM_SCENARIOS,
        description: target.description,
        endpoint: target.webhookUrl,
        secrets: [target.secretToken, sandbox.token],
        preflight: () => preflight(target),
        open: (scenario, timeoutMs) => new TelegramScenarioRun(scenario, { target, sandbox, pump }, timeoutMs),
      },
      options,
    );
  } finally {
    await pump.stop();
  }
}

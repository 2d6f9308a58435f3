import type { CliIo } from '../cli-io.js';
import { type StormAppWorld, type StormAppWorldOptions, withStormApp } from '../storm-app/storm-app-world.js';
import { loadClickStorm, loadPaymeStorm, loadTelegramStorm, loadUzumStorm } from '../storm-peer.js';
import {
  type CommandReport,
  type LoadedProviderStorm,
  type ProviderRun,
  type ProviderStormCommandOptions,
  runProviderStormCommand,
} from './storm-provider.js';

/** The providers whose storm runs against the user's app. */
export type AppProvider = 'payme' | 'click' | 'uzum' | 'telegram';

/** The options of `payonce storm --adapter FILE --provider payme|click|uzum|telegram`. */
export type AppProviderStormCommandOptions = StormAppWorldOptions & Omit<ProviderStormCommandOptions, 'target'>;

/** Nothing to close: the provider storm closes the adapter, `withStormApp` the app and the sandboxes. */
const NO_TARGET = { close: async () => undefined };

/** A loaded provider storm's report renderers, typed for the command's report. */
interface Renderers<Report> {
  table(report: Report): string;
  summary(report: Report): string;
  html(report: Report): string;
  junit(report: Report): string;
}

/** `renderers` as the command calls them (its reports are the provider's, seen as `CommandReport`). */
function rendered<Report>(renderers: Renderers<Report>) {
  const as = (report: CommandReport) => report as Report;
  return {
    table: (report: CommandReport) => renderers.table(as(report)),
    summary: (report: CommandReport) => renderers.summary(as(report)),
    html: (report: CommandReport) => renderers.html(as(report)),
    junit: (report: CommandReport) => renderers.junit(as(report)),
  };
}

/** A loaded provider storm, as `runProviderStormCommand` runs it, without its target. */
type AppStormParts = Omit<LoadedProviderStorm<typeof NO_TARGET, CommandReport>, 'target' | 'run'>;

/** A provider's storm for the app: its renderers and errors, and how it runs on a world's app. */
interface AppStorm {
  readonly parts: AppStormParts;
  runOn(world: StormAppWorld, run: ProviderRun): Promise<CommandReport>;
}

/**
 * Loads the provider's storm (before the app starts: a missing peer fails first) and returns its renderers and its
 * run against a world's app.
 */
async function appStormOf(provider: AppProvider, neededFor: string): Promise<AppStorm> {
  if (provider === 'payme') {
    const payme = await loadPaymeStorm(neededFor);
    const { formatPaymeStormTable: table, paymeStormSummary: summary, html, junit } = payme;
    return {
      parts: { ...payme, ...rendered({ table, summary, html, junit }) },
      runOn: ({ app, secrets }, run) => payme.runAppPaymeStorm({ app, key: secrets.paymeKey, ...run }),
    };
  }
  if (provider === 'uzum') {
    const uzum = await loadUzumStorm(neededFor);
    const { formatUzumStormTable: table, uzumStormSummary: summary, html, junit } = uzum;
    return {
      parts: { ...uzum, ...rendered({ table, summary, html, junit }) },
      runOn: ({ app, secrets }, run) =>
        uzum.runAppUzumStorm({
          app,
          login: secrets.uzumLogin,
          password: secrets.uzumPassword,
          serviceId: secrets.uzumServiceId,
          ...run,
        }),
    };
  }
  if (provider === 'telegram') {
    const telegram = await loadTelegramStorm(neededFor);
    const { formatTelegramStormTable: table, telegramStormSummary: summary, html, junit } = telegram;
    return {
      parts: { ...telegram, ...rendered({ table, summary, html, junit }) },
      runOn: ({ app, secrets, telegram: sandbox }, run) => {
        if (sandbox === undefined || secrets.telegram === undefined) {
          throw new Error('the Telegram sandbox was not started'); // withStormApp starts it with `telegram: true`
        }
        return telegram.runAppTelegramStorm({ app, sandbox, secretToken: secrets.telegram.webhookSecret, ...run });
      },
    };
  }
  const click = await loadClickStorm(neededFor);
  const { formatClickStormTable: table, clickStormSummary: summary, html, junit } = click;
  return {
    parts: { ...click, ...rendered({ table, summary, html, junit }) },
    runOn: ({ app, secrets }, run) =>
      click.runAppClickStorm({ app, serviceId: secrets.clickServiceId, secretKey: secrets.clickSecretKey, ...run }),
  };
}

/** How the command names the provider. */
const NAMES: Readonly<Record<AppProvider, string>> = {
  payme: 'Payme',
  click: 'Click',
  uzum: 'Uzum',
  telegram: 'Telegram',
};

/**
 * `payonce storm --adapter FILE --provider payme|click|uzum|telegram [--start CMD] [--url URL]`: that provider's storm
 * against the user's app (docs/storm-your-app.md "Provider storms against your app"): the app is started (or reached)
 * as for the Stripe storm, with the provider's credentials in its environment (`PAYONCE_STORM_PAYME_KEY`,
 * `PAYONCE_STORM_CLICK_SERVICE_ID`, `PAYONCE_STORM_CLICK_SECRET_KEY`, `PAYONCE_STORM_UZUM_LOGIN`, `_PASSWORD`,
 * `_SERVICE_ID`; for Telegram the storm also starts its Telegram sandbox and gives `PAYONCE_STORM_TELEGRAM_API_URL`,
 * `_BOT_TOKEN`, `_WEBHOOK_SECRET`); the storm plays the provider against the endpoints of `adapter.providers` and
 * judges the orders through the adapter. An adapter without the provider has every scenario skipped with the
 * reason. Prints and writes `--report`, `--junit` and `--html` as `--provider NAME --target` does. A started app
 * that exits during the run stops it at once (`AppExited`).
 * @throws {CliUsageError} a malformed flag, a bad adapter file, neither `--url` nor `--start` (exit status 2).
 * @throws {ProviderStormFailed} at least one scenario failed (exit status 1).
 * @throws {StormTargetUnavailable} the app's endpoint does not answer or refuses the credentials (exit status 1).
 * @throws {AppNotHealthy} the app never became healthy (exit status 1).
 * @throws {AppExited} the started app exited during the run (exit status 1).
 */
export async function runAppProviderStormCommand(
  provider: AppProvider,
  options: AppProviderStormCommandOptions,
  io: CliIo,
): Promise<CommandReport> {
  const name = NAMES[provider];
  const storm = await appStormOf(provider, `payonce storm --adapter --provider ${provider}`);
  const world = { ...options, telegram: provider === 'telegram' };
  // The app starts inside the storm's run: the flags are checked first, and an app that never becomes healthy, or
  // exits during the run, is reported (--report, --junit, --html) as the command reports an unavailable target.
  return runProviderStormCommand({ ...options, target: options.adapter }, io, name, async () => ({
    ...storm.parts,
    target: () => NO_TARGET,
    run: (_none, run) => withStormApp(world, io, (started) => storm.runOn(started, { ...run, signal: started.signal })),
  }));
}

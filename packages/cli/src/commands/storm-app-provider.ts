import type { CliIo } from '../cli-io.js';
import { type StormAppWorld, type StormAppWorldOptions, withStormApp } from '../storm-app/storm-app-world.js';
import { loadClickStorm, loadPaymeStorm, loadUzumStorm } from '../storm-peer.js';
import {
  type CommandReport,
  type LoadedProviderStorm,
  type ProviderRun,
  type ProviderStormCommandOptions,
  runProviderStormCommand,
} from './storm-provider.js';

/** The providers whose storm runs against the user's app. */
export type AppProvider = 'payme' | 'click' | 'uzum';

/** The options of `payonce storm --adapter FILE --provider payme|click|uzum`. */
export type AppProviderStormCommandOptions = StormAppWorldOptions & Omit<ProviderStormCommandOptions, 'target'>;

/** Nothing to close: the provider storm closes the adapter, `withStormApp` the app and the sandbox. */
const NO_TARGET = { close: async () => undefined };

/**
 * Loads the provider's storm (before the app starts: a missing peer fails first) and returns its storm against a
 * world's app, as `runProviderStormCommand` runs it.
 */
async function appStormOf(
  provider: AppProvider,
  neededFor: string,
): Promise<(world: StormAppWorld) => LoadedProviderStorm<typeof NO_TARGET, CommandReport>> {
  if (provider === 'payme') {
    const payme = await loadPaymeStorm(neededFor);
    type Report = Parameters<typeof payme.formatPaymeStormTable>[0];
    return ({ app, secrets }) => ({
      ...payme,
      target: () => NO_TARGET,
      run: (_none, run: ProviderRun) => payme.runAppPaymeStorm({ app, key: secrets.paymeKey, ...run }),
      table: (report) => payme.formatPaymeStormTable(report as Report),
      summary: (report) => payme.paymeStormSummary(report as Report),
    });
  }
  if (provider === 'uzum') {
    const uzum = await loadUzumStorm(neededFor);
    type Report = Parameters<typeof uzum.formatUzumStormTable>[0];
    return ({ app, secrets }) => ({
      ...uzum,
      target: () => NO_TARGET,
      run: (_none, run: ProviderRun) =>
        uzum.runAppUzumStorm({
          app,
          login: secrets.uzumLogin,
          password: secrets.uzumPassword,
          serviceId: secrets.uzumServiceId,
          ...run,
        }),
      table: (report) => uzum.formatUzumStormTable(report as Report),
      summary: (report) => uzum.uzumStormSummary(report as Report),
    });
  }
  const click = await loadClickStorm(neededFor);
  type Report = Parameters<typeof click.formatClickStormTable>[0];
  return ({ app, secrets }) => ({
    ...click,
    target: () => NO_TARGET,
    run: (_none, run: ProviderRun) =>
      click.runAppClickStorm({ app, serviceId: secrets.clickServiceId, secretKey: secrets.clickSecretKey, ...run }),
    table: (report) => click.formatClickStormTable(report as Report),
    summary: (report) => click.clickStormSummary(report as Report),
  });
}

/**
 * `payonce storm --adapter FILE --provider payme|click|uzum [--start CMD] [--url URL]`: that provider's storm against the
 * user's app (docs/storm-your-app.md "Provider storms against your app"): the app is started (or reached) as for the
 * Stripe storm, with the provider's credentials in its environment (`PAYONCE_STORM_PAYME_KEY`,
 * `PAYONCE_STORM_CLICK_SERVICE_ID`, `PAYONCE_STORM_CLICK_SECRET_KEY`, `PAYONCE_STORM_UZUM_LOGIN`, `_PASSWORD`,
 * `_SERVICE_ID`); the storm plays the provider against the
 * endpoints of `adapter.providers` and judges the orders through the adapter. An adapter without the provider has
 * every scenario skipped with the reason. Prints and writes `--report` as `--provider NAME --target` does.
 * @throws {CliUsageError} a malformed flag, a bad adapter file, neither `--url` nor `--start` (exit status 2).
 * @throws {ProviderStormFailed} at least one scenario failed (exit status 1).
 * @throws {StormTargetUnavailable} the app's endpoint does not answer or refuses the credentials (exit status 1).
 * @throws {AppNotHealthy} the app never became healthy (exit status 1).
 */
export async function runAppProviderStormCommand(
  provider: AppProvider,
  options: AppProviderStormCommandOptions,
  io: CliIo,
): Promise<CommandReport> {
  const name = provider === 'payme' ? 'Payme' : provider === 'click' ? 'Click' : 'Uzum';
  const stormOn = await appStormOf(provider, `payonce storm --adapter --provider ${provider}`);
  return withStormApp(options, io, (world) =>
    runProviderStormCommand({ ...options, target: world.app.name }, io, name, async () => stormOn(world)),
  );
}

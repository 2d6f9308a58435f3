import type { PaymeStormReport } from '@payonce/storm/internal/payme/run-payme-storm.js';
import type { CliIo } from '../cli-io.js';
import { type StormAppWorldOptions, withStormApp } from '../storm-app/storm-app-world.js';
import { loadPaymeStorm } from '../storm-peer.js';
import { type ProviderStormCommandOptions, runProviderStormCommand } from './storm-provider.js';

/** The options of `payonce storm --adapter FILE --provider payme`. */
export type AppPaymeStormCommandOptions = StormAppWorldOptions & Omit<ProviderStormCommandOptions, 'target'>;

/**
 * `payonce storm --adapter FILE --provider payme [--start CMD] [--url URL]`: the Payme storm against the user's app
 * (docs/storm-your-app.md "Payme"): the app is started (or reached) as for the Stripe storm, with the cashbox key in
 * `PAYONCE_STORM_PAYME_KEY`; the storm plays Payme against `adapter.providers.payme.merchantUrl` and judges the
 * orders through the adapter. An adapter without `providers.payme` has every scenario skipped with the reason.
 * Prints and writes `--report` as `--provider payme --target` does.
 * @throws {CliUsageError} a malformed flag, a bad adapter file, neither `--url` nor `--start` (exit status 2).
 * @throws {ProviderStormFailed} at least one scenario failed (exit status 1).
 * @throws {StormTargetUnavailable} the app's Payme endpoint does not answer or refuses the key (exit status 1).
 * @throws {AppNotHealthy} the app never became healthy (exit status 1).
 */
export async function runAppPaymeStormCommand(
  options: AppPaymeStormCommandOptions,
  io: CliIo,
): Promise<PaymeStormReport> {
  const payme = await loadPaymeStorm('payonce storm --adapter --provider payme');
  return withStormApp(options, io, (world) =>
    runProviderStormCommand({ ...options, target: world.app.name }, io, 'Payme', async () => ({
      target: () => ({ close: async () => undefined }),
      run: (_none, run) => payme.runAppPaymeStorm({ app: world.app, key: world.secrets.paymeKey, ...run }),
      table: payme.formatPaymeStormTable,
      summary: payme.paymeStormSummary,
      StormTargetUnavailable: payme.StormTargetUnavailable,
      aloneIds: payme.aloneIds,
    })),
  );
}

import type { ClickStormReport } from '@payonce/storm/internal/click/run-click-storm.js';
import type { ClosableClickTarget } from '@payonce/storm/internal/click/service-click-target.js';
import type { UzumStormReport } from '@payonce/storm/internal/uzum/run-uzum-storm.js';
import type { ClosableUzumTarget } from '@payonce/storm/internal/uzum/service-uzum-target.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { loadClickStorm, loadUzumStorm } from '../storm-peer.js';
import {
  type LoadedProviderStorm,
  type ProviderRun,
  type ProviderStormCommandOptions,
  runProviderStormCommand,
} from './storm-provider.js';

/** The options of `payonce storm` the Click and Uzum storms read (the flags and variables of `payonce serve`). */
export interface ClickUzumStormCommandOptions extends ProviderStormCommandOptions {
  readonly clickServiceId?: number;
  /** The SECRET_KEY; with a comma-separated rotation list, the first key signs. */
  readonly clickSecretKey?: string;
  readonly uzumLogin?: string;
  readonly uzumPassword?: string;
  readonly uzumServiceId?: number;
}

const given = (text: string | undefined): text is string => text !== undefined && text.trim() !== '';

/**
 * `payonce storm --provider click`: the Click storm against the service at `--target` (its `POST /click/prepare`
 * and `/click/complete`, orders through `POST /orders`), signing with `--click-service-id` and `--click-secret-key`.
 * Output, report and exit status as `--provider payme`.
 * @throws {CliUsageError} no service id or secret key, `--replica`, a malformed number, URL or `--only` (exit 2).
 * @throws {ProviderStormFailed} a scenario failed (exit status 1), after printing and writing the report.
 * @throws {StormTargetUnavailable} the endpoint does not answer, or refuses the signature (exit status 1).
 * @see docs/storm.md "Click storm".
 */
export async function runClickStormCommand(
  options: ClickUzumStormCommandOptions,
  io: CliIo,
): Promise<ClickStormReport> {
  const { clickServiceId: serviceId } = options;
  const secretKey = options.clickSecretKey?.split(',')[0]?.trim();
  if (serviceId === undefined || !given(secretKey)) {
    throw new CliUsageError(
      '--provider click needs --click-service-id and --click-secret-key (or PAYONCE_CLICK_SERVICE_ID, PAYONCE_CLICK_SECRET_KEY)',
    );
  }
  const { target: service, adminToken } = options;
  return runProviderStormCommand(options, io, 'Click', async () =>
    clickStormOf(await loadClickStorm('payonce storm --provider click'), { service, serviceId, secretKey, adminToken }),
  );
}

/** The Click storm against the service `params.service`, as `runProviderStormCommand` and the demo run it. */
export function clickStormOf(
  click: Awaited<ReturnType<typeof loadClickStorm>>,
  params: { service: string; serviceId: number; secretKey: string; adminToken?: string },
) {
  return {
    ...click,
    target: (timeoutMs: number | undefined) => click.serviceClickTarget({ ...params, timeoutMs }),
    run: (target: ClosableClickTarget, run: ProviderRun) => click.runClickStorm({ target, ...run }),
    table: click.formatClickStormTable,
    summary: click.clickStormSummary,
  } satisfies LoadedProviderStorm<ClosableClickTarget, ClickStormReport>;
}

/**
 * `payonce storm --provider uzum`: the Uzum storm against the service at `--target` (its `POST /uzum/*`, orders
 * through `POST /orders`), authorising with `--uzum-login`, `--uzum-password` and `--uzum-service-id`. Output,
 * report and exit status as `--provider payme`.
 * @throws {CliUsageError} a credential missing, `--replica`, a malformed number, URL or `--only` (exit status 2).
 * @throws {ProviderStormFailed} a scenario failed (exit status 1), after printing and writing the report.
 * @throws {StormTargetUnavailable} the endpoint does not answer, or refuses the credentials (exit status 1).
 * @see docs/storm.md "Uzum storm".
 */
export async function runUzumStormCommand(options: ClickUzumStormCommandOptions, io: CliIo): Promise<UzumStormReport> {
  const { uzumLogin: login, uzumPassword: password, uzumServiceId: serviceId } = options;
  if (!given(login) || !given(password) || serviceId === undefined) {
    throw new CliUsageError(
      '--provider uzum needs --uzum-login, --uzum-password and --uzum-service-id (or PAYONCE_UZUM_LOGIN, PAYONCE_UZUM_PASSWORD, PAYONCE_UZUM_SERVICE_ID)',
    );
  }
  const { target: service, adminToken } = options;
  return runProviderStormCommand(options, io, 'Uzum', async () =>
    uzumStormOf(await loadUzumStorm('payonce storm --provider uzum'), {
      service,
      login,
      password,
      serviceId,
      adminToken,
    }),
  );
}

/** The Uzum storm against the service `params.service`, as `runProviderStormCommand` and the demo run it. */
export function uzumStormOf(
  uzum: Awaited<ReturnType<typeof loadUzumStorm>>,
  params: { service: string; login: string; password: string; serviceId: number; adminToken?: string },
) {
  return {
    ...uzum,
    target: (timeoutMs: number | undefined) => uzum.serviceUzumTarget({ ...params, timeoutMs }),
    run: (target: ClosableUzumTarget, run: ProviderRun) => uzum.runUzumStorm({ target, ...run }),
    table: uzum.formatUzumStormTable,
    summary: uzum.uzumStormSummary,
  } satisfies LoadedProviderStorm<ClosableUzumTarget, UzumStormReport>;
}

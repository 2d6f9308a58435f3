import type { InvalidOption } from 'payonce/internal/core/errors.js';
import { CliUsageError } from '../cli-usage-error.js';

/** `--count`: 1…9999. @throws {CliUsageError} otherwise. */
export function sandboxCountOf(value: string): number {
  if (!/^\d{1,4}$/.test(value.trim()) || Number(value) < 1)
    throw new CliUsageError(`--count: "${value}" is not 1…9999`);
  return Number(value);
}

/** `--service-id`: a positive integer. @throws {CliUsageError} otherwise. */
export function serviceIdOf(value: string): number {
  if (!/^[1-9]\d{0,14}$/.test(value.trim()))
    throw new CliUsageError(`--service-id: "${value}" is not a positive integer`);
  return Number(value);
}

/**
 * Reads `--orders VALUE:AMOUNT[,VALUE:AMOUNT…]` (AMOUNT in tiyin; the last `:` splits, so VALUE may hold one).
 * @throws {CliUsageError} anything else.
 */
export function valueAmountPairs(text: string): { value: string; amount: number }[] {
  return text.split(',').map((part) => {
    const match = /^\s*(.+):(\d{1,15})\s*$/.exec(part);
    if (match === null) throw new CliUsageError(`--orders: "${part}" is not VALUE:AMOUNT (amount in tiyin)`);
    return { value: match[1] as string, amount: Number(match[2]) };
  });
}

/** What a provider sandbox command does: run the acceptance battery against `url`, or pay orders through it. */
export interface SandboxMode {
  readonly mode: 'check' | 'pay';
  readonly url: string;
}

/**
 * Reads the one shape every provider sandbox command takes: `--check [url]` runs the acceptance battery, `--pay
 * [url]` pays orders; the URL comes with the flag or from the command's URL option (`urlFlag`: `--merchant-url`,
 * `--prepare-url`, given as `url`). With `urlPays` (Payme, Uzum), the URL option alone means `--pay`, as before.
 * @throws {CliUsageError} both modes, no mode, no URL, or two different URLs.
 */
export function sandboxModeOf(
  flags: { check?: string | boolean; pay?: string | boolean },
  urlFlag: string,
  url: string | undefined,
  urlPays: boolean,
): SandboxMode {
  const forms = `--check URL or --pay URL (or --check / --pay with ${urlFlag} URL)`;
  if (flags.check !== undefined && flags.pay !== undefined) {
    throw new CliUsageError(`give exactly one of --check and --pay: ${forms}`);
  }
  const mode =
    flags.check !== undefined ? 'check' : flags.pay !== undefined || (urlPays && url !== undefined) ? 'pay' : null;
  if (mode === null) throw new CliUsageError(`give exactly one of --check and --pay: ${forms}`);
  const given = flags[mode];
  const inline = typeof given === 'string' ? given : undefined;
  if (inline !== undefined && url !== undefined && inline !== url) {
    throw new CliUsageError(`--${mode} ${inline} and ${urlFlag} ${url} name two endpoints: give one`);
  }
  const found = inline ?? url;
  if (found === undefined) throw new CliUsageError(`--${mode} needs the endpoint: --${mode} URL or ${urlFlag} URL`);
  return { mode, url: found };
}

/**
 * `--orders` for the acceptance battery: at least `needed` orders (the battery pays one and cancels another).
 * @throws {CliUsageError} fewer.
 */
export function checkBatteryOrders(orders: readonly unknown[], needed: number): void {
  if (!Array.isArray(orders) || orders.length < needed) {
    throw new CliUsageError(
      `--orders: the acceptance battery needs at least ${needed} fresh payable orders (VALUE:AMOUNT,VALUE:AMOUNT), got ${Array.isArray(orders) ? orders.length : 0}`,
    );
  }
}

/**
 * A sandbox entry's {@link InvalidOption} as the command line says it: `flags` maps the library option's name
 * (`merchantUrl`, `orders`, `faults`) to its flag (`--merchant-url`, `--orders`, `--inject`); other names stay.
 */
export function sandboxUsageError(error: InvalidOption, flags: Readonly<Record<string, string>>): CliUsageError {
  const reason = error.message.replace(`invalid option ${error.option}: `, '');
  return new CliUsageError(`${flags[error.option] ?? error.option}: ${reason}`);
}

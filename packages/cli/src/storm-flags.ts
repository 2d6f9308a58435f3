import { CliUsageError } from './cli-usage-error.js';

/**
 * `--only` of `payonce storm`: scenario numbers separated by commas. `example` shows good ones in the message.
 * @throws {CliUsageError} anything but one- or two-digit numbers.
 */
export function scenarioList(value: string, example = '1,8,12'): number[] {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d{1,2}$/.test(part))) {
    throw new CliUsageError(`--only takes scenario numbers separated by commas (e.g. ${example}), got "${value}"`);
  }
  return parts.map(Number);
}

/** A whole-number flag (`--timeout-ms`, `--concurrency`), or `undefined`. @throws {CliUsageError} not digits. */
export function wholeNumberFlag(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliUsageError(`${name} must be a whole number, got "${value}"`);
  return Number(value);
}

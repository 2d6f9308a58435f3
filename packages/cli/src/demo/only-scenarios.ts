import { CliUsageError } from '../cli-usage-error.js';

/**
 * Parses `--only 1,8,12`: a comma-separated list of scenario numbers (docs/design.md §9 numbers them 1…`count`), returned
 * ascending without duplicates. `none` (or an empty value) is the empty list: no scenario runs, which with
 * `--serve` just starts the sandbox and the service.
 * @throws {CliUsageError} an entry that is not a whole number from 1 to `count`.
 * @example parseOnlyScenarios('12,1,8,8') // [1, 8, 12]
 */
export function parseOnlyScenarios(value: string, count = 22): number[] {
  if (value.trim().toLowerCase() === 'none') return [];
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const numbers = entries.map((entry) => {
    const n = /^\d{1,3}$/.test(entry) ? Number(entry) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > count) {
      throw new CliUsageError(`--only: "${entry}" is not a scenario number from 1 to ${count} (e.g. --only 1,8,12)`);
    }
    return n;
  });
  return [...new Set(numbers)].sort((a, b) => a - b);
}

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

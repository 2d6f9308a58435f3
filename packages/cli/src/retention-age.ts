import { CliUsageError } from './cli-usage-error.js';

const UNIT_MS: Readonly<Record<string, number>> = Object.freeze({
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
});

/**
 * A retention age as the CLI takes it: a non-negative integer with a unit, `ms`, `s`, `m`, `h`, `d` or `w`
 * (`30d`, `24h`, `90m`), in milliseconds.
 * @throws {CliUsageError} anything else, naming the flag (exit status 2).
 */
export function retentionAgeMs(flag: string, text: string): number {
  const match = /^(\d{1,9})(ms|s|m|h|d|w)$/.exec(String(text).trim());
  const value = match ? Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new CliUsageError(`${flag} must be an age like 30d, 24h, 90m, 45s or 500ms, got ${JSON.stringify(text)}`);
  }
  return value;
}

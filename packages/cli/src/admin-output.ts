import { Option } from 'commander';
import type { CliIo } from './cli-io.js';
import { millis } from './commands/serve.js';

/** Flags every console read command takes. */
export interface ReadFlags {
  databaseUrl: string;
  json?: boolean;
  limit: number;
  receiptStaleAfterMs?: number;
  idempotencyStaleAfterMs?: number;
}

/** The `--database-url` option (mandatory, or `PAYONCE_DATABASE_URL` / `DATABASE_URL`). */
export function databaseUrlOption(): Option {
  return new Option('--database-url <url>', 'SQLite file path (or sqlite:PATH), postgres://… or mysql://…')
    .env('DATABASE_URL')
    .makeOptionMandatory();
}

/** `--limit <n>`: rows to print (1–200). */
export function limitOption(): Option {
  return new Option('--limit <n>', 'rows to print, newest first (1–200)').default(50).argParser((value) => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 1 || n > 200) throw new Error('must be 1–200');
    return n;
  });
}

/** The stale-limit flags (the service's values, so "stuck" means the same here as in the service). */
export function staleOptions(): Option[] {
  return [
    new Option('--receipt-stale-after-ms <ms>', "the service's webhook receipt lease (default 30000)").argParser(
      millis('--receipt-stale-after-ms', 1, Number.MAX_SAFE_INTEGER),
    ),
    new Option('--idempotency-stale-after-ms <ms>', "the service's Idempotency-Key lease (default 60000)").argParser(
      millis('--idempotency-stale-after-ms', 1, Number.MAX_SAFE_INTEGER),
    ),
  ];
}

/** A time as `YYYY-MM-DD HH:MM:SS` UTC, or `-`. */
export function utc(ms: number | null | undefined): string {
  return ms === null || ms === undefined
    ? '-'
    : new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, '');
}

/** Prints rows as a left-aligned text table with a header line. */
export function printTable(io: CliIo, headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  io.out(line(headers));
  for (const row of rows) io.out(line(row));
}

/** Prints `value` as indented JSON (one line per `io.out`). */
export function printJson(io: CliIo, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

import type { CheckResult, ShownExchange } from './check-runner.js';

/** What an acceptance battery found: `passed` when every check passed and the battery ran to its end. */
export interface AcceptanceReport<E extends Omit<ShownExchange, 'what'> = ShownExchange> {
  readonly passed: boolean;
  /** The checks that ran, in order (none when the preflight stopped the battery). */
  readonly checks: readonly CheckResult<E>[];
  /** The provider-side transaction ids the battery used (to find them in your records). */
  readonly transactionIds: readonly string[];
  /**
   * Why the battery stopped before its last check, in one line, or null when it ran them all: the endpoint cannot
   * be reached, answers 404 or HTML, refuses the configured credentials, refuses an order's own amount (tiyin given
   * as sum?), names another account field, or an order is not payable. The checks after it were not run.
   */
  readonly stopped: string | null;
}

const clip = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, width - 1)}…`);

/**
 * A report as text lines: one table row per check (number, PASS/FAIL, name, expected, got), then for each failed
 * check what was sent and received and why the provider expects otherwise, then a summary line.
 */
export function formatAcceptanceReport(report: AcceptanceReport): string[] {
  return reportLines(report.checks, (exchange) => `sent ${exchange.what}`, report.stopped);
}

/**
 * The lines of {@link formatAcceptanceReport} for any provider's checks: each sent call is written as
 * `<sent(exchange)> (<auth>): <body>`, and `stopped` (why the battery stopped early), when not null, comes just
 * before the summary line. When no check ran, the one line `stopped: <why>` is all.
 */
export function reportLines<E extends Omit<ShownExchange, 'what'>>(
  checks: readonly CheckResult<E>[],
  sent: (exchange: E) => string,
  stopped: string | null,
): string[] {
  if (checks.length === 0 && stopped !== null) return [`stopped: ${stopped}`];
  const width = Math.max(...checks.map((c) => c.name.length), 5);
  const lines = [`  #  result  ${'check'.padEnd(width)}  expected → got`];
  checks.forEach((check, i) => {
    const mark = check.passed ? 'PASS' : 'FAIL';
    lines.push(
      `${String(i + 1).padStart(3)}  ${mark.padEnd(6)}  ${check.name.padEnd(width)}  ${clip(check.expected, 60)} → ${clip(check.got, 60)}`,
    );
  });
  for (const [i, check] of checks.entries()) {
    if (check.passed) continue;
    lines.push('', `FAIL ${i + 1}. ${check.name}`, `  expected: ${check.expected}`, `  got:      ${check.got}`);
    lines.push(`  why:      ${check.why}`);
    for (const exchange of check.exchanges) {
      lines.push(`  ${sent(exchange)} (${exchange.auth}): ${clip(exchange.body, 300)}`);
      lines.push(`  received (${exchange.status ?? 'no answer'}): ${clip(exchange.received, 300)}`);
    }
  }
  const failed = checks.filter((c) => !c.passed).length;
  if (stopped !== null) lines.push('', `stopped: ${stopped}`);
  lines.push('', failed === 0 ? `all ${checks.length} checks passed` : `${failed} of ${checks.length} checks failed`);
  return lines;
}

/** The report of a runner's results and why it stopped (null: it ran to its end), frozen. */
export function reportOf<E extends Omit<ShownExchange, 'what'>>(
  results: readonly CheckResult<E>[],
  transactionIds: readonly string[],
  stopped: string | null,
): AcceptanceReport<E> {
  const checks = Object.freeze([...results]);
  return Object.freeze({
    passed: checks.every((c) => c.passed) && stopped === null,
    checks,
    transactionIds: Object.freeze([...transactionIds]),
    stopped,
  });
}

import type { PaymeExchange } from './payme-rpc.js';

/** The outcome of one acceptance check. */
export interface PaymeCheckResult {
  /** Short name, e.g. `CreateTransaction repeated`. */
  readonly name: string;
  readonly passed: boolean;
  /** The expected answer, in words (codes and fields). */
  readonly expected: string;
  /** What came back, summarised (the first difference when it failed). */
  readonly got: string;
  /** Why Payme expects it, and where that is written (a Payme documentation URL or a fixture). */
  readonly why: string;
  /** Every call the check made: the body sent (the key hidden), the HTTP status, the body received. */
  readonly exchanges: readonly PaymeExchange[];
}

/** What `runPaymeAcceptance` found: `passed` when every check passed. */
export interface PaymeAcceptanceReport {
  readonly passed: boolean;
  readonly checks: readonly PaymeCheckResult[];
  /** The Payme transaction ids the battery created (to find them in your records). */
  readonly transactionIds: readonly string[];
  /**
   * Why the battery stopped before its last check, or null when it ran them all: an order the merchant refused as
   * not payable ("order {…} is not payable: pass fresh orders"); the checks after it were not run.
   */
  readonly stopped: string | null;
}

const clip = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, width - 1)}…`);

/**
 * The report as text lines: one table row per check (number, PASS/FAIL, name, expected, got), then for each failed
 * check what was sent and received and why Payme expects otherwise, then why the battery stopped early (if it did),
 * then a summary line.
 */
export function formatPaymeReport(report: PaymeAcceptanceReport): string[] {
  const width = Math.max(...report.checks.map((c) => c.name.length), 5);
  const lines = [`  #  result  ${'check'.padEnd(width)}  expected → got`];
  report.checks.forEach((check, i) => {
    const mark = check.passed ? 'PASS' : 'FAIL';
    lines.push(
      `${String(i + 1).padStart(3)}  ${mark.padEnd(6)}  ${check.name.padEnd(width)}  ${clip(check.expected, 60)} → ${clip(check.got, 60)}`,
    );
  });
  for (const [i, check] of report.checks.entries()) {
    if (check.passed) continue;
    lines.push('', `FAIL ${i + 1}. ${check.name}`, `  expected: ${check.expected}`, `  got:      ${check.got}`);
    lines.push(`  why:      ${check.why}`);
    for (const exchange of check.exchanges) {
      lines.push(`  sent (${exchange.auth}): ${clip(exchange.body, 300)}`);
      lines.push(`  received (${exchange.status ?? 'no answer'}): ${clip(exchange.received, 300)}`);
    }
  }
  const failed = report.checks.filter((c) => !c.passed).length;
  if (report.stopped !== null) lines.push('', `stopped: ${report.stopped}`);
  lines.push(
    '',
    failed === 0 ? `all ${report.checks.length} checks passed` : `${failed} of ${report.checks.length} checks failed`,
  );
  return lines;
}

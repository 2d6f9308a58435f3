import { type AcceptanceReport, reportLines } from '../acceptance/acceptance-report.js';
import type { CheckResult } from '../acceptance/check-runner.js';
import type { PaymeExchange } from './payme-rpc.js';

/**
 * The outcome of one acceptance check: its name, `passed`, what was expected and what came back (in words), why
 * Payme expects it (a Payme documentation URL or a fixture), and every call it made (the key hidden).
 */
export type PaymeCheckResult = CheckResult<PaymeExchange>;

/**
 * What `runPaymeAcceptance` found: `passed` when every check passed and the battery ran to its end; `stopped` also
 * says when an order the merchant refused was not payable ("order {…} is not payable: pass fresh orders").
 */
export type PaymeAcceptanceReport = AcceptanceReport<PaymeExchange>;

/**
 * The report as text lines: one table row per check (number, PASS/FAIL, name, expected, got), then for each failed
 * check what was sent and received and why Payme expects otherwise, then why the battery stopped early (if it did),
 * then a summary line.
 */
export function formatPaymeReport(report: PaymeAcceptanceReport): string[] {
  return reportLines(report.checks, () => 'sent', report.stopped);
}

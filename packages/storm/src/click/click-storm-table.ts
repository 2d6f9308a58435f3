import { formatProviderStormTable, providerStormSummary } from '../provider/provider-storm-table.js';
import type { ClickScenarioCounts } from './click-scenario.js';
import type { ClickStormReport } from './run-click-storm.js';

const WORDS = { provider: 'Click', charge: 'complete', charges: (c: ClickScenarioCounts) => c.completes } as const;

/**
 * The Click storm table, one row per scenario: scenario, calls sent, faults injected, completes (payments Click's
 * ledger saw completed), paid transitions, fulfilments, verdict; below it the reasons of every failed or skipped one.
 */
export function formatClickStormTable(report: ClickStormReport): string {
  return formatProviderStormTable(report, WORDS);
}

/** One line about the Click run: `PASS: 10/10 Click scenarios` or `FAIL: …`, the skipped ones, the totals, the time. */
export function clickStormSummary(report: ClickStormReport): string {
  return providerStormSummary(report, WORDS);
}

import { formatProviderStormTable, providerStormSummary } from '../provider/provider-storm-table.js';
import type { UzumStormReport } from './run-uzum-storm.js';
import type { UzumScenarioCounts } from './uzum-scenario.js';

const WORDS = { provider: 'Uzum', charge: 'confirm', charges: (c: UzumScenarioCounts) => c.confirms } as const;

/**
 * The Uzum storm table, one row per scenario: scenario, calls sent, faults injected, confirms (transactions Uzum
 * Bank's ledger saw CONFIRMED), paid transitions, fulfilments, verdict; below it the reasons of every failed or
 * skipped one.
 */
export function formatUzumStormTable(report: UzumStormReport): string {
  return formatProviderStormTable(report, WORDS);
}

/** One line about the Uzum run: `PASS: 10/10 Uzum scenarios` or `FAIL: …`, the skipped ones, the totals, the time. */
export function uzumStormSummary(report: UzumStormReport): string {
  return providerStormSummary(report, WORDS);
}

import { providerStormHtml } from '../provider/provider-storm-html.js';
import { formatProviderStormTable, providerStormSummary } from '../provider/provider-storm-table.js';
import type { UzumStormReport } from './run-uzum-storm.js';
import type { UzumOrderJudgement, UzumScenarioCounts } from './uzum-scenario.js';

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

const HTML_WORDS = {
  provider: 'uzum',
  keyOf: (o: UzumOrderJudgement) => o.params,
  facts: (o: UzumOrderJudgement) =>
    `${o.confirms} confirm(s) and ${o.refunds} reverse(s) by Uzum Bank; ${o.paidTransitions} paid transition(s), ${o.fulfilments} fulfilment(s), ${o.targetRefunds} refund(s) by the merchant; Uzum Bank's ledger ${o.payerTiyin} tiyin, held by the merchant ${o.merchantTiyin} tiyin`,
};

/**
 * The Uzum storm's HTML report (`payonce storm --provider uzum --html FILE`): the scenario table and, per
 * scenario, each order's timeline (`providerStormHtml`); an order's facts are what the provider's ledger and the
 * merchant each hold for it.
 */
export function uzumStormHtml(report: UzumStormReport): string {
  return providerStormHtml(report, HTML_WORDS);
}

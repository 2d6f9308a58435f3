import { providerStormHtml } from '../provider/provider-storm-html.js';
import { formatProviderStormTable, providerStormSummary } from '../provider/provider-storm-table.js';
import type { PaymeOrderJudgement, PaymeScenarioCounts } from './payme-scenario.js';
import type { PaymeStormReport } from './run-payme-storm.js';

const WORDS = { provider: 'Payme', charge: 'perform', charges: (c: PaymeScenarioCounts) => c.performs } as const;

/**
 * The Payme storm table, one row per scenario: scenario, calls sent, faults injected, performs (transactions that
 * reached state 2 in Payme's ledger), paid transitions, fulfilments, verdict (`pass`/`FAIL`/`skip`); below it one
 * line per reason of every failed or skipped scenario. Plain text, fixed-width columns, no trailing newline.
 */
export function formatPaymeStormTable(report: PaymeStormReport): string {
  return formatProviderStormTable(report, WORDS);
}

/**
 * One line about the Payme run: `PASS: 11/11 Payme scenarios` or `FAIL: 2 of 11 Payme scenarios failed (3, 5)`, the
 * skipped ones, then the totals of calls, faults, performs, paid transitions and fulfilments and the duration.
 */
export function paymeStormSummary(report: PaymeStormReport): string {
  return providerStormSummary(report, WORDS);
}

const HTML_WORDS = {
  provider: 'payme',
  keyOf: (o: PaymeOrderJudgement) => o.account,
  facts: (o: PaymeOrderJudgement) =>
    `${o.performs} perform(s) and ${o.refunds} refund(s) by Payme; ${o.paidTransitions} paid transition(s), ${o.fulfilments} fulfilment(s), ${o.targetRefunds} refund(s) by the merchant; Payme's ledger ${o.payerTiyin} tiyin, the merchant's statement ${o.merchantTiyin} tiyin`,
};

/**
 * The Payme storm's HTML report (`payonce storm --provider payme --html FILE`): the scenario table and, per
 * scenario, each order's timeline (`providerStormHtml`); an order's facts are what the provider's ledger and the
 * merchant each hold for it.
 */
export function paymeStormHtml(report: PaymeStormReport): string {
  return providerStormHtml(report, HTML_WORDS);
}

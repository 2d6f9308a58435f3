import { providerStormHtml } from '../provider/provider-storm-html.js';
import { formatProviderStormTable, providerStormSummary } from '../provider/provider-storm-table.js';
import type { ClickOrderJudgement, ClickScenarioCounts } from './click-scenario.js';
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

const HTML_WORDS = {
  provider: 'click',
  keyOf: (o: ClickOrderJudgement) => o.merchantTransId,
  facts: (o: ClickOrderJudgement) =>
    `${o.completes} complete(s) by Click; ${o.paidTransitions} paid transition(s), ${o.fulfilments} fulfilment(s); Click's ledger ${o.payerTiyin} tiyin, held by the merchant ${o.merchantTiyin} tiyin`,
};

/**
 * The Click storm's HTML report (`payonce storm --provider click --html FILE`): the scenario table and, per
 * scenario, each order's timeline (`providerStormHtml`); an order's facts are what the provider's ledger and the
 * merchant each hold for it.
 */
export function clickStormHtml(report: ClickStormReport): string {
  return providerStormHtml(report, HTML_WORDS);
}

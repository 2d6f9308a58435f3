import { providerStormHtml } from '../provider/provider-storm-html.js';
import { formatProviderStormTable, providerStormSummary } from '../provider/provider-storm-table.js';
import type { TelegramStormReport } from './run-telegram-storm.js';
import type { TelegramOrderJudgement, TelegramScenarioCounts } from './telegram-scenario.js';

const WORDS = { provider: 'Telegram', charge: 'charge', charges: (c: TelegramScenarioCounts) => c.charges } as const;

/**
 * The Telegram storm table, one row per scenario: scenario, webhook POSTs sent, faults injected, charges (payments
 * in Telegram's ledger), paid transitions, fulfilments, verdict; below it the reasons of every failed or skipped one.
 */
export function formatTelegramStormTable(report: TelegramStormReport): string {
  return formatProviderStormTable(report, WORDS);
}

/** One line about the Telegram run: `PASS: 8/8 Telegram scenarios` or `FAIL: …`, skipped ones, totals, time. */
export function telegramStormSummary(report: TelegramStormReport): string {
  return providerStormSummary(report, WORDS);
}

const HTML_WORDS = {
  provider: 'telegram',
  keyOf: (o: TelegramOrderJudgement) => o.orderId,
  facts: (o: TelegramOrderJudgement) =>
    `${o.charges} charge(s) and ${o.refunds} refund(s) by Telegram; ${o.paidTransitions} paid transition(s), ${o.fulfilments} fulfilment(s), ${o.targetRefunds} refund(s) by the merchant; Telegram's ledger ${o.payerStars} stars, held by the merchant ${o.merchantStars} stars`,
};

/**
 * The Telegram storm's HTML report (`payonce storm --provider telegram --html FILE`): the scenario table and, per
 * scenario, each order's timeline (`providerStormHtml`); an order's facts are what the provider's ledger and the
 * merchant each hold for it.
 */
export function telegramStormHtml(report: TelegramStormReport): string {
  return providerStormHtml(report, HTML_WORDS);
}

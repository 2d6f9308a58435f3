import { formatProviderStormTable, providerStormSummary } from '../provider/provider-storm-table.js';
import type { TelegramStormReport } from './run-telegram-storm.js';
import type { TelegramScenarioCounts } from './telegram-scenario.js';

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

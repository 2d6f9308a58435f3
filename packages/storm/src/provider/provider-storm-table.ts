import { counted } from '../counted.js';
import type { ProviderScenarioCounts, ProviderScenarioResult } from './provider-scenario.js';

const NAME_WIDTH = 52;

/** How a provider's table and summary name things: the provider, and its charge column (a count in `counts`). */
export interface ProviderTableWords<C extends ProviderScenarioCounts> {
  /** `Payme`, `Click`, `Uzum`. */
  readonly provider: string;
  /** The charge column's singular noun, e.g. `perform`, `complete`, `confirm` (the header is its plural). */
  readonly charge: string;
  /** The number of that column in a scenario's counts. */
  readonly charges: (counts: C) => number;
}

/** What the table and the summary read from a report. */
export interface ProviderTableReport<C extends ProviderScenarioCounts> {
  readonly durationMs: number;
  readonly results: readonly ProviderScenarioResult<C, unknown>[];
}

function label(result: ProviderScenarioResult<ProviderScenarioCounts, unknown>): string {
  const text = `${String(result.id).padStart(2)} ${result.name}`;
  return text.length > NAME_WIDTH ? `${text.slice(0, NAME_WIDTH - 1)}…` : text;
}

/**
 * A provider storm table, one row per scenario: scenario, calls sent, faults injected, charges (the provider's
 * column, e.g. performs), paid transitions, fulfilments, verdict (`pass`/`FAIL`/`skip`); below it one line per reason
 * of every failed or skipped scenario. Plain text, fixed-width columns, no trailing newline.
 */
export function formatProviderStormTable<C extends ProviderScenarioCounts>(
  report: ProviderTableReport<C>,
  words: ProviderTableWords<C>,
): string {
  const headers = ['calls sent', 'faults', `${words.charge}s`, 'paid transitions', 'fulfilments', 'verdict'];
  const lines = [['scenario'.padEnd(NAME_WIDTH), ...headers].join('  ')];
  for (const r of report.results) {
    const cells = [
      String(r.counts.calls),
      String(r.counts.faults),
      String(words.charges(r.counts)),
      String(r.counts.paidTransitions),
      String(r.counts.fulfilments),
      r.verdict === 'fail' ? 'FAIL' : r.verdict,
    ];
    lines.push([label(r).padEnd(NAME_WIDTH), ...cells.map((c, i) => c.padStart(headers[i]?.length ?? 0))].join('  '));
  }
  const explained = report.results.filter((r) => r.verdict !== 'pass');
  if (explained.length > 0) lines.push('');
  for (const r of explained) {
    for (const reason of r.reasons) lines.push(`${r.verdict === 'fail' ? 'FAIL' : 'skip'} ${r.id}: ${reason}`);
  }
  return lines.join('\n');
}

/**
 * One line about a provider storm run: `PASS: 11/11 Payme scenarios` or `FAIL: 2 of 11 Payme scenarios failed
 * (3, 5)`, the skipped ones, then the totals of calls, faults, charges, paid transitions and fulfilments and the
 * duration in seconds.
 */
export function providerStormSummary<C extends ProviderScenarioCounts>(
  report: ProviderTableReport<C>,
  words: ProviderTableWords<C>,
): string {
  const { results } = report;
  const total = (pick: (c: C) => number) => results.reduce((n, r) => n + pick(r.counts), 0);
  const failed = results.filter((r) => r.verdict === 'fail').map((r) => r.id);
  const skipped = results.filter((r) => r.verdict === 'skip').map((r) => r.id);
  const passed = results.length - failed.length - skipped.length;
  const what = `${words.provider} scenarios`;
  const head =
    failed.length === 0
      ? `PASS: ${passed}/${results.length} ${what}`
      : `FAIL: ${failed.length} of ${results.length} ${what} failed (${failed.join(', ')})`;
  const skip = skipped.length > 0 ? ` (${skipped.length} skipped: ${skipped.join(', ')})` : '';
  const totals = [
    counted(
      total((c) => c.calls),
      'call',
    ),
    counted(
      total((c) => c.faults),
      'fault',
    ),
    counted(total(words.charges), words.charge),
    counted(
      total((c) => c.paidTransitions),
      'paid transition',
    ),
    counted(
      total((c) => c.fulfilments),
      'fulfilment',
    ),
  ];
  return `${head}${skip}, ${totals.join(', ')}, ${(report.durationMs / 1000).toFixed(1)} s`;
}

import { counted } from './counted.js';
import type { ScenarioResult } from './scenario.js';
import type { StormReport } from './storm-report.js';

const NAME_WIDTH = 52;

function label(result: ScenarioResult): string {
  const text = `${String(result.id).padStart(2)} ${result.name}`;
  return text.length > NAME_WIDTH ? `${text.slice(0, NAME_WIDTH - 1)}…` : text;
}

/**
 * The storm table, one row per scenario: scenario, deliveries sent, duplicates, charges, paid transitions,
 * fulfilments, verdict (`pass`/`FAIL`/`skip`); below it, one line per reason of every failed or skipped scenario.
 * Plain text, fixed-width columns, no trailing newline.
 * @example io.out(formatStormTable(await runStorm(options)));
 */
export function formatStormTable(report: StormReport): string {
  const headers = ['deliveries sent', 'duplicates', 'charges', 'paid transitions', 'fulfilments', 'verdict'];
  const rows = report.results.map((r) => [
    label(r),
    String(r.counts.deliveriesSent),
    String(r.counts.duplicates),
    String(r.counts.charges),
    String(r.counts.paidTransitions),
    String(r.counts.fulfilments),
    r.verdict === 'fail' ? 'FAIL' : r.verdict,
  ]);
  const lines = [['scenario'.padEnd(NAME_WIDTH), ...headers].join('  ')];
  for (const [name, ...cells] of rows) {
    lines.push(
      [(name ?? '').padEnd(NAME_WIDTH), ...cells.map((cell, i) => cell.padStart(headers[i]?.length ?? 0))].join('  '),
    );
  }
  const explained = report.results.filter((r) => r.verdict !== 'pass');
  if (explained.length > 0) lines.push('');
  for (const r of explained) {
    for (const reason of r.reasons) lines.push(`${r.verdict === 'fail' ? 'FAIL' : 'skip'} ${r.id}: ${reason}`);
  }
  return lines.join('\n');
}

/**
 * One line about the run: `PASS: 18/18 scenarios, …` or `FAIL: 2 of 18 scenarios failed (8, 16), …`, with the
 * totals of deliveries, duplicates, charges, paid transitions and fulfilments and the duration in seconds.
 */
export function stormSummary(report: StormReport): string {
  const { results } = report;
  const total = (pick: (r: ScenarioResult) => number) => results.reduce((n, r) => n + pick(r), 0);
  const failed = results.filter((r) => r.verdict === 'fail').map((r) => r.id);
  const skipped = results.filter((r) => r.verdict === 'skip').map((r) => r.id);
  const passed = results.length - failed.length - skipped.length;
  const head =
    failed.length === 0
      ? `PASS: ${passed}/${results.length} scenarios`
      : `FAIL: ${failed.length} of ${results.length} scenarios failed (${failed.join(', ')})`;
  const skip = skipped.length > 0 ? ` (${skipped.length} skipped: ${skipped.join(', ')})` : '';
  const sum = (pick: (r: ScenarioResult) => number, singular: string, plural?: string) =>
    counted(total(pick), singular, plural);
  const deliveries = sum((r) => r.counts.deliveriesSent, 'delivery', 'deliveries');
  const duplicates = sum((r) => r.counts.duplicates, 'duplicate');
  const charges = sum((r) => r.counts.charges, 'charge');
  const paid = sum((r) => r.counts.paidTransitions, 'paid transition');
  const fulfilments = sum((r) => r.counts.fulfilments, 'fulfilment');
  const seconds = (report.durationMs / 1000).toFixed(1);
  return `${head}${skip}, ${deliveries} (${duplicates}), ${charges}, ${paid}, ${fulfilments}, ${seconds} s`;
}

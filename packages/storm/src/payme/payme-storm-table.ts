import { counted } from '../counted.js';
import type { PaymeScenarioResult } from './payme-scenario.js';
import type { PaymeStormReport } from './run-payme-storm.js';

const NAME_WIDTH = 52;

function label(result: PaymeScenarioResult): string {
  const text = `${String(result.id).padStart(2)} ${result.name}`;
  return text.length > NAME_WIDTH ? `${text.slice(0, NAME_WIDTH - 1)}…` : text;
}

/**
 * The Payme storm table, one row per scenario: scenario, calls sent, faults injected, performs (transactions that
 * reached state 2 in Payme's ledger), paid transitions, fulfilments, verdict (`pass`/`FAIL`/`skip`); below it one
 * line per reason of every failed or skipped scenario. Plain text, fixed-width columns, no trailing newline.
 */
export function formatPaymeStormTable(report: PaymeStormReport): string {
  const headers = ['calls sent', 'faults', 'performs', 'paid transitions', 'fulfilments', 'verdict'];
  const lines = [['scenario'.padEnd(NAME_WIDTH), ...headers].join('  ')];
  for (const r of report.results) {
    const cells = [
      String(r.counts.calls),
      String(r.counts.faults),
      String(r.counts.performs),
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
 * One line about the Payme run: `PASS: 11/11 scenarios` or `FAIL: 2 of 11 scenarios failed (3, 5)`, the skipped
 * ones, then the totals of calls, faults, performs, paid transitions and fulfilments and the duration in seconds.
 */
export function paymeStormSummary(report: PaymeStormReport): string {
  const { results } = report;
  const total = (pick: (r: PaymeScenarioResult) => number) => results.reduce((n, r) => n + pick(r), 0);
  const failed = results.filter((r) => r.verdict === 'fail').map((r) => r.id);
  const skipped = results.filter((r) => r.verdict === 'skip').map((r) => r.id);
  const passed = results.length - failed.length - skipped.length;
  const head =
    failed.length === 0
      ? `PASS: ${passed}/${results.length} Payme scenarios`
      : `FAIL: ${failed.length} of ${results.length} Payme scenarios failed (${failed.join(', ')})`;
  const skip = skipped.length > 0 ? ` (${skipped.length} skipped: ${skipped.join(', ')})` : '';
  const totals = [
    counted(
      total((r) => r.counts.calls),
      'call',
    ),
    counted(
      total((r) => r.counts.faults),
      'fault',
    ),
    counted(
      total((r) => r.counts.performs),
      'perform',
    ),
    counted(
      total((r) => r.counts.paidTransitions),
      'paid transition',
    ),
    counted(
      total((r) => r.counts.fulfilments),
      'fulfilment',
    ),
  ];
  return `${head}${skip}, ${totals.join(', ')}, ${(report.durationMs / 1000).toFixed(1)} s`;
}

import { counted } from '../counted.js';
import type { ReplayReport } from './replay-report.js';

const MAX_ID_CHARS = 44;

function cell(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

/**
 * The one-line summary of a run: `PASS` when no capture contradicts its `expect`, else `FAIL` and the ids of the
 * contradicted captures; counts of captures, deliveries by answer class, replays, the seed and the duration (ms).
 * @example replaySummaryLine(report) // 'PASS: 32 captures, 96 deliveries (66 2xx, 30 4xx, 0 5xx, 0 no answer), …'
 */
export function replaySummaryLine(report: ReplayReport): string {
  const t = report.totals;
  const contradicted = report.captures.filter((c) => c.verdict === 'contradicted').map((c) => c.id);
  const head = report.ok
    ? `PASS: ${t.matched} matched, ${t.unchecked} unchecked`
    : `FAIL: ${t.contradicted} of ${counted(t.captures, 'capture')} contradict their expect (${contradicted.join(', ')})`;
  const order = report.shuffled ? `shuffled with seed ${report.seed}` : 'in file order';
  const answers = `${t.success} 2xx, ${t.clientError} 4xx, ${t.serverError} 5xx, ${t.other} other, ${t.failed} no answer`;
  return (
    `${head}; ${counted(t.captures, 'capture')}, ${counted(t.deliveries, 'delivery', 'deliveries')} (${answers}), ` +
    `${t.replayed} replayed; ` +
    `${counted(report.copies, 'copy', 'copies')} each, ${report.parallel} in parallel, ${order}, ${report.durationMs} ms`
  );
}

/**
 * The report as terminal lines: a header, one row per capture (id, expect, copies sent, answers by class,
 * `Idempotent-Replayed` answers, distinct answers, verdict, and the statuses or the reason of a contradiction),
 * a blank line and {@link replaySummaryLine}.
 */
export function replayTable(report: ReplayReport): string[] {
  const idWidth = Math.max(7, ...report.captures.map((c) => Math.min(MAX_ID_CHARS, c.id.length)));
  const head = [
    cell('capture', idWidth),
    cell('expect', 8),
    cell('sent', 5, true),
    cell('2xx', 5, true),
    cell('4xx', 5, true),
    cell('5xx', 5, true),
    cell('none', 5, true),
    cell('replayed', 8, true),
    cell('distinct', 8, true),
    cell('verdict', 12),
    'answers',
  ].join('  ');
  const rows = report.captures.map((c) => {
    const id = c.id.length > MAX_ID_CHARS ? `${c.id.slice(0, MAX_ID_CHARS - 1)}…` : c.id;
    const codes = c.problemCodes.length > 0 ? ` [${c.problemCodes.join(', ')}]` : '';
    return [
      cell(id, idWidth),
      cell(c.expect ?? '-', 8),
      cell(String(c.statuses.length), 5, true),
      cell(String(c.counts.success), 5, true),
      cell(String(c.counts.clientError), 5, true),
      cell(String(c.counts.serverError), 5, true),
      cell(String(c.counts.failed), 5, true),
      cell(String(c.replayed), 8, true),
      cell(String(c.distinctAnswers), 8, true),
      cell(c.verdict, 12),
      `${c.reason}${codes}`,
    ].join('  ');
  });
  return [head, ...rows, '', replaySummaryLine(report)];
}

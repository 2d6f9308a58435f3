import { readFile, writeFile } from 'node:fs/promises';
import type { BenchBackend } from './namespaces.js';
import type { BenchReport, ReportRow } from './report.js';

/** The README's Performance numbers live between these markers; `npm run bench` rewrites what is between them. */
export const README_START = '<!-- bench:ratios:start (written by npm run bench from bench/results.json) -->';
export const README_END = '<!-- bench:ratios:end -->';

const BACKEND_NAMES: ReadonlyArray<readonly [BenchBackend, string]> = [
  ['postgres', 'PostgreSQL (pg)'],
  ['mysql', 'MariaDB (mysql2)'],
  ['sqlite', 'SQLite WAL, synchronous=FULL'],
  ['sqlite-normal', 'SQLite WAL, synchronous=NORMAL'],
  ['redis', 'Redis (ioredis)'],
  ['memory', 'MemoryStore vs a bare Map (in-process CPU only, no target)'],
];

const ratio = (value: number | null | undefined): string =>
  value === null || value === undefined || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(2)}×`;

/** Per-run ratios of `row` to its baseline row (run i ÷ run i), as min–max, to show the spread behind the median. */
function runSpread(row: ReportRow, baseline: ReportRow | undefined): string {
  if (!baseline) return '';
  const n = Math.min(row.samples.length, baseline.samples.length);
  const ratios = Array.from({ length: n }, (_, i) => row.samples[i]!.opsPerSec / baseline.samples[i]!.opsPerSec);
  if (ratios.length < 2) return '';
  return ` (runs ${ratio(Math.min(...ratios))}–${ratio(Math.max(...ratios))})`;
}

/**
 * The README's Performance numbers from `report`: payonce's ratio to the bare minimum per backend under workload
 * (a), the `runInTransaction` row, the HTTP adapters and the storms — the same numbers as `bench/RESULTS.md`.
 */
export function renderReadmeSection(report: BenchReport): string {
  const find = (id: string, workload: ReportRow['workload']) =>
    report.rows.find((r) => r.id === id && r.workload === workload && r.error === null);
  const lines = [
    README_START,
    `Run of ${report.generatedAt.slice(0, 10)} (${Math.round(report.durationSec)} s, load average ${report.loadAverage.start.toFixed(1)} at start; ` +
      `median of ${report.rows.find((r) => r.workload === 'unique')?.samples.length ?? 0} runs), workload (a): unique keys, 8 concurrent callers.`,
    '',
    '| backend | payonce `guard.run` ÷ bare minimum (1.00× = no overhead, higher is better) |',
    '|---|---:|',
  ];
  for (const [backend, name] of BACKEND_NAMES) {
    const row = find(`${backend}/payonce`, 'unique');
    if (!row) continue;
    lines.push(`| ${name} | ${ratio(row.ratioToBare)}${runSpread(row, find(`${backend}/bare`, 'unique'))} |`);
  }
  lines.push('');
  const tx = find('postgres/payonce-tx', 'unique');
  const handTx = find('postgres/bare-tx', 'unique');
  if (tx) {
    lines.push(
      `\`runInTransaction\` on PostgreSQL (one commit, with a business write): ${ratio(tx.ratioToBare)} of the two-commit bare minimum` +
        (handTx ? `; the same transaction hand-written on raw pg reached ${ratio(handTx.ratioToBare)}` : '') +
        (report.postgresCosts
          ? ` (a commit cost ${report.postgresCosts.commitInRoundTrips.toFixed(1)} round trips in that run, so one commit in five round trips cannot beat two autocommit statements by much: ceiling ${ratio(report.postgresCosts.oneCommitCeiling)}).`
          : '.'),
    );
  }
  const http = report.rows.filter((r) => r.workload === 'http' && r.kind === 'payonce' && r.error === null);
  if (http.length > 0) {
    lines.push(
      `Over HTTP (signed Standard Webhooks deliveries on loopback), payonce's routes ÷ the bare route of the same framework: ${http
        .map((r) => `${r.id.replace('/http:', ' ')} ${ratio(r.ratioToBare)}`)
        .join(', ')}.`,
    );
  }
  const storms = report.rows.filter(
    (r) => (r.workload === 'storm' || r.workload === 'http-storm') && r.kind === 'payonce',
  );
  const exact = storms.every(
    (r) => r.handlerRuns.length > 0 && r.handlerRuns.every((n, i) => n === r.expectedHandlerRuns[i]),
  );
  if (storms.length > 0) {
    lines.push(
      exact
        ? `Every payonce storm ran the handler exactly once per key (${storms.length} storm rows).`
        : 'Some payonce storm ran a handler more than once per key: see bench/RESULTS.md.',
    );
  }
  for (const peer of report.targets.filter((t) => t.target.startsWith('≥ 1.5× the fastest peer'))) {
    lines.push(
      `Against the fastest peer library on the same backend: ${peer.subject} ${peer.measured.split(' (')[0]}.`,
    );
  }
  const met = report.targets.filter((t) => t.met).length;
  lines.push(
    `${met} of ${report.targets.length} targets of issue 6 were met in that run; every miss is explained in bench/RESULTS.md.`,
  );
  lines.push(README_END);
  return lines.join('\n');
}

/**
 * Rewrites the part of `readmePath` between `README_START` and `README_END` with `renderReadmeSection(report)`.
 * Returns false (and changes nothing) when the markers are missing.
 */
export async function updateReadme(readmePath: string, report: BenchReport): Promise<boolean> {
  const text = await readFile(readmePath, 'utf8');
  const start = text.indexOf(README_START);
  const end = text.indexOf(README_END);
  if (start < 0 || end < start) return false;
  await writeFile(readmePath, text.slice(0, start) + renderReadmeSection(report) + text.slice(end + README_END.length));
  return true;
}

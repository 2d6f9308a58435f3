import type { HttpRouteName } from '../http/http-routes.js';
import { spread } from './measure.js';
import type { BenchBackend } from './namespaces.js';
import type { PostgresCosts } from './pg-costs.js';
import type { RowResult, WorkloadName } from './run-rows.js';
import type { Versions } from './versions.js';

/** A row with its ratio to the bare minimum (or bare route) on the same backend, same workload. */
export interface ReportRow extends RowResult {
  /** Id of the row the ratio is taken against. */
  readonly baselineId: string | null;
  /** Median ops/s of this row ÷ median ops/s of the baseline; null when either is missing. */
  readonly ratioToBare: number | null;
}

/** One target of issue 6, judged from this run's numbers. */
export interface TargetResult {
  readonly target: string;
  readonly subject: string;
  /** What was measured and what was required, e.g. `0.93× (≥ 0.90×)`. */
  readonly measured: string;
  readonly met: boolean;
}

export interface BenchReport {
  readonly generatedAt: string;
  readonly quick: boolean;
  readonly durationSec: number;
  /** System load average (1 min) at start and end: other work on the machine shows up here. */
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly sizes: Readonly<Record<string, unknown>>;
  readonly versions: Versions | null;
  /** Peak RSS under workload (a), bytes: the highest of the rows' processes. */
  readonly peakRssUnderUniqueBytes: number | null;
  readonly rows: readonly ReportRow[];
  readonly targets: readonly TargetResult[];
  /** PostgreSQL round-trip and commit cost measured in this run (null when PostgreSQL rows did not run). */
  readonly postgresCosts: PostgresCosts | null;
}

export interface ReportInput {
  readonly rows: readonly RowResult[];
  readonly generatedAt: Date;
  readonly quick: boolean;
  readonly durationSec: number;
  readonly loadAverage: { start: number; end: number };
  readonly sizes: Readonly<Record<string, unknown>>;
  readonly versions: Versions | null;
  readonly postgresCosts?: PostgresCosts | null;
}

/** The id of the row a row is compared with: `<backend>/bare`, or the bare route of the same framework. */
export function baselineIdOf(row: RowResult, baselineRoute?: HttpRouteName): string {
  if (row.workload === 'http' || row.workload === 'http-storm') return `${row.backend}/http:${baselineRoute}`;
  return `${row.backend}/bare`;
}

const x = (ratio: number | null): string =>
  ratio === null || !Number.isFinite(ratio) ? 'n/a' : `${ratio.toFixed(2)}×`;

function median(row: ReportRow | undefined): number | null {
  const value = row?.opsPerSec.median;
  return row && row.error === null && value !== undefined && Number.isFinite(value) ? value : null;
}

/** Builds the report: ratios per row and the verdict on every target of issue 6 that this run covers. */
export function buildReport(
  input: ReportInput,
  baselines: ReadonlyMap<string, HttpRouteName> = new Map(),
): BenchReport {
  const byKey = new Map(input.rows.map((row) => [`${row.id}|${row.workload}`, row]));
  const rows: ReportRow[] = input.rows.map((row) => {
    const baselineId = baselineIdOf(row, baselines.get(row.id));
    const baseline = byKey.get(`${baselineId}|${row.workload}`);
    const mine = row.error === null ? row.opsPerSec.median : null;
    const theirs = baseline && baseline.error === null ? baseline.opsPerSec.median : null;
    const ratio = mine !== null && theirs !== null && theirs > 0 ? mine / theirs : null;
    return { ...row, baselineId: baseline ? baselineId : null, ratioToBare: ratio };
  });
  const find = (id: string, workload: WorkloadName) => rows.find((r) => r.id === id && r.workload === workload);
  const targets: TargetResult[] = [];

  // 1. guard ≥ 0.9× the bare minimum on the same driver (workload (a)).
  for (const backend of ['postgres', 'mysql', 'sqlite', 'sqlite-normal', 'redis'] as BenchBackend[]) {
    const row = find(`${backend}/payonce`, 'unique');
    if (!row) continue;
    targets.push({
      target: 'guard ≥ 0.9× bare minimum, same driver (a)',
      subject: row.id,
      measured: `${x(row.ratioToBare)} (≥ 0.90×)`,
      met: row.ratioToBare !== null && row.ratioToBare >= 0.9,
    });
  }
  // 2. ≥ 1.5× the fastest peer on the same backend (workload (a); HTTP: express adapter vs express-idempotency).
  const peerTarget = (payonceId: string, workload: WorkloadName, peers: readonly ReportRow[]) => {
    const mine = median(find(payonceId, workload));
    const best = peers.reduce<ReportRow | null>(
      (top, peer) => ((median(peer) ?? -1) > (median(top ?? undefined) ?? -1) ? peer : top),
      null,
    );
    if (!best || mine === null) return;
    const theirs = median(best);
    const ratio = theirs === null ? null : mine / theirs;
    targets.push({
      target: '≥ 1.5× the fastest peer, same backend',
      subject: `${payonceId} vs ${best.id} (${workload === 'unique' ? 'a' : 'c'})`,
      measured: `${x(ratio)} (≥ 1.50×)`,
      met: ratio !== null && ratio >= 1.5,
    });
  };
  for (const backend of ['memory', 'redis'] as BenchBackend[]) {
    const peers = rows.filter((r) => r.backend === backend && r.kind === 'peer' && r.workload === 'unique');
    peerTarget(`${backend}/payonce`, 'unique', peers);
  }
  for (const backend of ['memory', 'postgres', 'redis'] as BenchBackend[]) {
    const peers = rows.filter((r) => r.backend === backend && r.kind === 'peer' && r.workload === 'http');
    peerTarget(`${backend}/http:express-adapter`, 'http', peers);
  }
  // 3. HTTP: payonce's route ≥ 0.8× the bare framework route.
  for (const row of rows) {
    if (row.workload !== 'http' || row.kind !== 'payonce') continue;
    targets.push({
      target: 'HTTP ≥ 0.8× the bare framework route (c)',
      subject: `${row.id} vs ${row.baselineId ?? 'n/a'}`,
      measured: `${x(row.ratioToBare)} (≥ 0.80×)`,
      met: row.ratioToBare !== null && row.ratioToBare >= 0.8,
    });
  }
  // 4. runInTransaction on PostgreSQL ≥ 1.5× the two-commit bare minimum.
  // The hand-written one-commit transaction on raw pg (postgres/bare-tx) shows what the design itself can reach.
  const tx = find('postgres/payonce-tx', 'unique');
  if (tx) {
    const handWritten = find('postgres/bare-tx', 'unique');
    const mine = median(tx);
    const theirs = median(handWritten);
    const costs = input.postgresCosts;
    const ceiling =
      (handWritten && theirs !== null
        ? `; the same transaction hand-written on raw pg: ${x(handWritten.ratioToBare)}, payonce ÷ that ${x(mine === null ? null : mine / theirs)}`
        : '') +
      (costs
        ? `; a commit costs ${costs.commitInRoundTrips.toFixed(1)} round trips here, ceiling ${x(costs.oneCommitCeiling)}`
        : '');
    targets.push({
      target: 'runInTransaction (1 commit) ≥ 1.5× two-commit bare minimum (a)',
      subject: tx.id,
      measured: `${x(tx.ratioToBare)} (≥ 1.50×)${ceiling}`,
      met: tx.ratioToBare !== null && tx.ratioToBare >= 1.5,
    });
  }
  // 5. Peak RSS under workload (a): every row runs in a process of its own; judged on the payonce rows' processes,
  // the highest of any row is shown too.
  const unique = rows.filter((r) => r.workload === 'unique' && r.peakRssBytes !== null);
  const peakOf = (list: readonly ReportRow[]) =>
    list.reduce<ReportRow | null>((top, r) => (top === null || r.peakRssBytes! > top.peakRssBytes! ? r : top), null);
  const peakRow = peakOf(unique);
  const peakPayonce = peakOf(unique.filter((r) => r.kind === 'payonce'));
  const peakRss = peakRow?.peakRssBytes ?? null;
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
  if (peakPayonce && peakRow) {
    targets.push({
      target: 'peak RSS of the bench process under (a) < 200 MB',
      subject: `payonce rows, each in its own process (highest: ${peakPayonce.id})`,
      measured: `${mb(peakPayonce.peakRssBytes!)} (< 200 MB); highest of any row ${mb(peakRow.peakRssBytes!)} (${peakRow.id})`,
      met: peakPayonce.peakRssBytes! < 200 * 2 ** 20,
    });
  }
  // 6. Handler runs == keys in every storm (payonce rows; peers are shown in the storm tables).
  const storms = rows.filter((r) => (r.workload === 'storm' || r.workload === 'http-storm') && r.kind === 'payonce');
  if (storms.length > 0) {
    const wrong = storms.filter(
      (r) =>
        r.error !== null || r.handlerRuns.length === 0 || r.handlerRuns.some((n, i) => n !== r.expectedHandlerRuns[i]),
    );
    targets.push({
      target: 'handler runs == keys in every storm (payonce rows)',
      subject: `${storms.length} storm rows`,
      measured: wrong.length === 0 ? 'all exact' : `wrong in ${wrong.map((r) => `${r.id} ${r.workload}`).join(', ')}`,
      met: wrong.length === 0,
    });
  }
  return {
    generatedAt: input.generatedAt.toISOString(),
    quick: input.quick,
    durationSec: input.durationSec,
    loadAverage: input.loadAverage,
    sizes: input.sizes,
    versions: input.versions,
    peakRssUnderUniqueBytes: peakRss,
    rows,
    targets,
    postgresCosts: input.postgresCosts ?? null,
  };
}

const num = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';

const WORKLOAD_TITLES: Record<WorkloadName, string> = {
  unique: '(a) unique keys',
  storm: '(b) duplicate storm',
  http: '(c) signed webhook intake over HTTP (loopback)',
  'http-storm': '(c) HTTP duplicate storm',
};

function table(rows: readonly ReportRow[], workload: WorkloadName): string[] {
  const storm = workload === 'storm' || workload === 'http-storm';
  const head = storm
    ? '| backend | row | deliveries/run | deliveries/s median (min–max) | p50 ms | p99 ms | ratio to bare | handler runs / keys |'
    : '| backend | row | deliveries/run | ops/s median (min–max) | p50 ms | p99 ms | ratio to bare | RSS MB before → peak |';
  const lines = [head, '|---|---|---:|---:|---:|---:|---:|---:|'];
  for (const row of rows.filter((r) => r.workload === workload)) {
    if (row.error !== null && row.samples.length === 0) {
      lines.push(`| ${row.backend} | ${row.label} | | **failed**: ${row.error.replaceAll('|', '\\|')} | | | | |`);
      continue;
    }
    const ops = `${num(row.opsPerSec.median)} (${num(row.opsPerSec.min)}–${num(row.opsPerSec.max)})`;
    const runs = row.handlerRuns.map((n, i) => (n === row.expectedHandlerRuns[i] ? `${n}` : `**${n}**`)).join(', ');
    const extra = row.handlerRuns.reduce((sum, n, i) => sum + Math.max(0, n - (row.expectedHandlerRuns[i] ?? n)), 0);
    const missing = row.handlerRuns.reduce((sum, n, i) => sum + Math.max(0, (row.expectedHandlerRuns[i] ?? n) - n), 0);
    const verdict =
      extra > 0
        ? ` — **ran a handler more than once: ${extra} extra run${extra === 1 ? '' : 's'}**`
        : missing > 0
          ? ` — **${missing} key${missing === 1 ? '' : 's'} never ran**`
          : row.handlerRuns.length > 0
            ? ' — exactly once per key'
            : '';
    const last = storm
      ? `${runs} / ${row.expectedHandlerRuns.join(', ')}${verdict}`
      : row.peakRssBytes === null
        ? ''
        : `${row.startRssBytes === null ? '?' : num(row.startRssBytes / 2 ** 20)} → ${num(row.peakRssBytes / 2 ** 20)}`;
    const error = row.error === null ? '' : ` ⚠ ${row.error.replaceAll('|', '\\|')}`;
    const deliveries = num(spread(row.samples.map((sample) => sample.deliveries)).median);
    lines.push(
      `| ${row.backend} | ${row.label}${error} | ${deliveries} | ${ops} | ${num(row.p50Ms.median, 2)} | ${num(row.p99Ms.median, 2)} | ${x(row.ratioToBare)} | ${last} |`,
    );
  }
  return lines;
}

/**
 * Renders `bench/RESULTS.md`. `notes` explain the method; `causes` maps a target name (as in `TargetResult.target`)
 * to what the profiles showed about it, printed only when this run missed that target.
 */
export function renderMarkdown(
  report: BenchReport,
  notes: readonly string[] = [],
  causes: Readonly<Record<string, string>> = {},
): string {
  const out: string[] = [];
  out.push('# payonce benchmark results', '');
  out.push(
    `Generated ${report.generatedAt} by \`npm run bench\`${report.quick ? ' (BENCH_QUICK=1 smoke run)' : ''} in ${num(report.durationSec)} s. ` +
      'This file is regenerated by every run; do not edit it by hand. Every number below comes from that run.',
    '',
  );
  out.push(
    `Load average (1 min) at start ${report.loadAverage.start.toFixed(2)}, at end ${report.loadAverage.end.toFixed(2)} ` +
      '(on this 2-core machine anything above ~2 means other work competed with the bench; compare ratios, not absolute rates).',
    '',
  );
  out.push('## Targets (issue 6)', '', '| target | row | measured | met |', '|---|---|---|---|');
  for (const t of report.targets)
    out.push(`| ${t.target} | ${t.subject} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`);
  out.push('');
  const missed = report.targets.filter((t) => !t.met);
  out.push(
    missed.length === 0
      ? 'All targets covered by this run were met.'
      : `${missed.length} of ${report.targets.length} targets were missed in this run; see "Why targets were missed" below.`,
    '',
  );
  const missedKinds = [...new Set(missed.map((t) => t.target))];
  if (missedKinds.length > 0) {
    out.push('## Why targets were missed', '');
    for (const kind of missedKinds) {
      const rows = missed.filter((t) => t.target === kind).map((t) => t.subject);
      out.push(`- **${kind}** (${rows.join('; ')}): ${causes[kind] ?? 'no profile explains this yet.'}`);
    }
    out.push('');
  }
  for (const workload of ['unique', 'storm', 'http', 'http-storm'] as WorkloadName[]) {
    if (!report.rows.some((r) => r.workload === workload)) continue;
    out.push(`## ${WORKLOAD_TITLES[workload]}`, '', ...table(report.rows, workload), '');
  }
  const costs = report.postgresCosts;
  if (costs) {
    out.push(
      '## PostgreSQL: a round trip against a commit (same run)',
      '',
      `8 callers, pool of 10: \`select 1\` ${num(costs.roundTripsPerSec)}/s, autocommit single-row INSERT ${num(costs.autocommitInsertsPerSec)}/s, ` +
        `so a commit costs about ${costs.commitInRoundTrips.toFixed(1)} round trips (C). The bare minimum sends two autocommit statements ` +
        `(2 round trips + 2 commits); a delivery in one transaction needs five round trips (BEGIN, claim, business INSERT, completion, ` +
        `COMMIT) and one commit, and pg sends one statement at a time (no pipelining). The best ratio a one-commit design can reach is ` +
        `2 × (1 + C) ÷ (5 + C) = **${x(costs.oneCommitCeiling)}**; 1.5× would need C ≥ 11. The "bare minimum in one transaction" row is ` +
        'that design hand-written on raw pg.',
      '',
    );
  }
  out.push('## Sizes', '', '```json', JSON.stringify(report.sizes, null, 2), '```', '');
  if (report.versions) {
    const v = report.versions;
    out.push('## Versions', '', `- Node ${v.node} (V8 ${v.v8}), ${v.os}, ${v.cpus}, ${v.memoryGiB} GiB RAM`);
    for (const [name, server] of Object.entries(v.servers)) out.push(`- ${name}: ${server}`);
    out.push(
      `- packages: ${Object.entries(v.packages)
        .map(([name, version]) => `${name} ${version}`)
        .join(', ')}`,
      '',
    );
  }
  if (notes.length > 0) out.push('## Method and notes', '', ...notes.map((n) => `- ${n}`), '');
  return `${out.join('\n')}\n`;
}

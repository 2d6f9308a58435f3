import type { Verdict } from './scenario.js';
import { redactSecrets, type StormTimelineEvent } from './storm-timeline.js';

/** One order in an HTML report: its id (as the timeline names it), what was found about it in words, its problems. */
export interface HtmlOrder {
  readonly orderId: string;
  /** E.g. `status paid, 1 charge(s), 1 paid transition(s), 1 fulfilment(s)`. */
  readonly facts: string;
  /** Broken rules; empty when the order passes. */
  readonly problems: readonly string[];
}

/** One scenario in an HTML report: its result, its judged orders and its timeline. */
export interface HtmlScenario {
  readonly id: number;
  readonly name: string;
  readonly defends: string;
  readonly criterion: string;
  readonly verdict: Verdict;
  readonly reasons: readonly string[];
  readonly notes: readonly string[];
  readonly durationMs: number;
  /** More words for the scenario's meta line (e.g. `drawn from the seed: …`), or `null`. */
  readonly extra: string | null;
  readonly orders: readonly HtmlOrder[];
  /** What happened to its orders, in time order. */
  readonly timeline: readonly StormTimelineEvent[];
}

/** One run in an HTML report: the target and provider, the seed (`null` when the storm has none), its scenarios. */
export interface HtmlRun {
  readonly target: string;
  readonly provider: string;
  readonly seed: number | null;
  readonly startedAtMs: number;
  readonly durationMs: number;
  readonly passed: boolean;
  readonly results: readonly HtmlScenario[];
}

/** `text` redacted (secrets) and escaped for HTML text and double-quoted attributes. */
function esc(text: string | number | null | undefined): string {
  if (text === null || text === undefined) return '';
  return redactSecrets(String(text))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}h3{font-size:15px;margin:0}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{border:1px solid #d0d7de;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa}code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.v-pass{color:#116329}.v-fail{color:#b3261e;font-weight:600}.v-skip{color:#6e7781}
tr.fail td{background:#fff1f0}details{margin:6px 0 6px 12px}summary{cursor:pointer}summary h3{display:inline}
.scenario{border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:10px 0}
.scenario.fail{border-color:#b3261e}.meta{color:#57606a}ul{margin:4px 0 4px 18px;padding:0}
td.actor,td.at{white-space:nowrap}.problems{color:#b3261e}
`;

const verdictWord = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

function scenarioRow(result: HtmlScenario, anchor: string): string {
  return [
    `<tr class="${result.verdict}" data-scenario="${result.id}">`,
    `<td>${result.id}</td>`,
    `<td><a href="#${anchor}">${esc(result.name)}</a></td>`,
    `<td>${esc(result.criterion)}</td>`,
    `<td class="v-${result.verdict}">${verdictWord[result.verdict]}</td>`,
    `<td>${result.reasons.length === 0 ? '' : `<ul>${result.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`}</td>`,
    '</tr>',
  ].join('');
}

function timelineTable(events: readonly StormTimelineEvent[], startedAtMs: number): string {
  if (events.length === 0) return '<p class="meta">no events recorded</p>';
  const rows = events.map((e) =>
    [
      '<tr class="event">',
      `<td class="mono at">+${esc(e.atMs - startedAtMs)} ms</td>`,
      `<td class="actor">${esc(e.actor)}</td>`,
      `<td>${esc(e.what)}</td>`,
      `<td>${esc(e.status)}</td>`,
      `<td class="mono">${esc(e.idempotencyKey)}</td>`,
      `<td>${esc(e.attempt)}</td>`,
      `<td>${esc(e.faults.join(', '))}</td>`,
      `<td class="mono">${esc(e.detail)}</td>`,
      '</tr>',
    ].join(''),
  );
  return [
    '<table class="timeline"><thead><tr><th>time</th><th>who</th><th>what</th><th>status</th>',
    '<th>Idempotency-Key</th><th>attempt</th><th>faults</th><th>detail</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table>',
  ].join('');
}

function orderSummary(order: HtmlOrder | undefined): string {
  if (order === undefined) return '';
  const { facts } = order;
  const problems = order.problems.map((p) => `<li>${esc(p)}</li>`).join('');
  return ` — <span class="meta">${esc(facts)}</span>${problems === '' ? '' : `<ul class="problems">${problems}</ul>`}`;
}

function scenarioSection(result: HtmlScenario, anchor: string, startedAtMs: number): string {
  const open = result.verdict === 'fail' ? ' open' : '';
  const { timeline } = result;
  const ids = [...new Set([...result.orders.map((o) => o.orderId), ...timeline.flatMap((e) => e.orderId ?? [])])];
  const orders = ids.map((id) => {
    const judged = result.orders.find((o) => o.orderId === id);
    const events = timeline.filter((e) => e.orderId === id);
    const broken = judged !== undefined && judged.problems.length > 0;
    return [
      `<details class="order" data-order="${esc(id)}"${open}>`,
      `<summary><span class="mono">order ${esc(id)}</span>${broken ? ' <span class="v-fail">broken</span>' : ''}${orderSummary(judged)}</summary>`,
      timelineTable(events, startedAtMs),
      '</details>',
    ].join('');
  });
  const loose = timeline.filter((e) => e.orderId === null);
  if (loose.length > 0) {
    orders.push(
      `<details class="order"${open}><summary>events tied to no order</summary>${timelineTable(loose, startedAtMs)}</details>`,
    );
  }
  const notes =
    result.notes.length === 0 ? '' : `<ul class="meta">${result.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`;
  return [
    `<details class="scenario ${result.verdict}" id="${anchor}"${open}>`,
    `<summary><h3>${result.id}. ${esc(result.name)} <span class="v-${result.verdict}">${verdictWord[result.verdict]}</span></h3></summary>`,
    `<p class="meta">defends: ${esc(result.defends)}; criterion: ${esc(result.criterion)}; ${esc(result.durationMs)} ms${result.extra === null ? '' : `; ${esc(result.extra)}`}</p>`,
    notes,
    ...orders,
    '</details>',
  ].join('');
}

function runSection(report: HtmlRun, index: number, of: number): string {
  const prefix = `run${index + 1}`;
  const title = of === 1 ? 'Scenarios' : `Run ${index + 1} of ${of}`;
  const failed = report.results.filter((r) => r.verdict === 'fail').length;
  const { seed } = report;
  const started = `started ${esc(new Date(report.startedAtMs).toISOString())}, ${esc(report.durationMs)} ms`;
  return [
    seed === null ? '<section class="run">' : `<section class="run" data-seed="${seed}">`,
    `<h2>${esc(title)}${seed === null ? '' : ` — seed ${seed}`} — ${report.passed ? '<span class="v-pass">passed</span>' : `<span class="v-fail">${failed} failed</span>`}</h2>`,
    `<p class="meta">${seed === null ? '' : `replay with <code>--seed ${seed}</code>; `}${started}</p>`,
    '<table class="scenarios"><thead><tr><th>#</th><th>scenario</th><th>criterion</th><th>verdict</th><th>reasons</th></tr></thead><tbody>',
    ...report.results.map((r) => scenarioRow(r, `${prefix}-s${r.id}`)),
    '</tbody></table>',
    ...report.results.map((r) => scenarioSection(r, `${prefix}-s${r.id}`, report.startedAtMs)),
    '</section>',
  ].join('\n');
}

function repeatSummary(runs: readonly HtmlRun[]): string {
  if (runs.length < 2) return '';
  const byId = new Map<number, { name: string; failed: number; ran: number }>();
  for (const run of runs) {
    for (const r of run.results) {
      const row = byId.get(r.id) ?? { name: r.name, failed: 0, ran: 0 };
      row.ran += 1;
      if (r.verdict === 'fail') row.failed += 1;
      byId.set(r.id, row);
    }
  }
  const rows = [...byId].map(
    ([id, row]) =>
      `<tr class="${row.failed > 0 ? 'fail' : 'pass'}"><td>${id}</td><td>${esc(row.name)}</td><td>${row.failed} of ${row.ran}</td></tr>`,
  );
  return [
    `<h2>${runs.length} runs</h2>`,
    '<table class="repeat"><thead><tr><th>#</th><th>scenario</th><th>runs failed</th></tr></thead><tbody>',
    ...rows,
    '</tbody></table>',
  ].join('\n');
}

/**
 * A storm's HTML report (`payonce storm --html FILE`), for any storm (Stripe's, a provider's): one self-contained page
 * (inline CSS, no script, no external resource; its Content-Security-Policy forbids any) with, per run, the table of
 * scenarios (number, name, criterion, verdict, reasons) and, per scenario, each order's timeline in time order (the
 * storm's requests to the app, the provider's calls, deliveries and their answers, the order's changes as the target
 * reported them). A failed scenario and its orders open expanded. Several runs (`--repeat N`) get a summary table of
 * how many runs each scenario failed. Every text is escaped and secrets (`whsec_…`, `sk_test_…`, bearer tokens,
 * signatures) are redacted.
 */
export function htmlReport(runs: readonly HtmlRun[], title: string): string {
  const first = runs[0];
  const passed = runs.every((r) => r.passed);
  const seeds = runs.flatMap((r) => (r.seed === null ? [] : [r.seed]));
  const head = [
    first === undefined ? null : `target ${esc(first.target)}, provider ${esc(first.provider)}`,
    seeds.length === 0 ? null : `seed(s) ${seeds.join(', ')}`,
  ];
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${esc(title)}: ${passed ? '<span class="v-pass">passed</span>' : '<span class="v-fail">failed</span>'}</h1>`,
    `<p class="meta">${head.filter((part) => part !== null).join('; ')}</p>`,
    repeatSummary(runs),
    ...runs.map((report, i) => runSection(report, i, runs.length)),
    '</body></html>',
    '',
  ].join('\n');
}

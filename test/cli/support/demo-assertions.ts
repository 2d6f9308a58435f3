import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import type { ClickStormReport } from '../../../packages/storm/src/click/run-click-storm.js';
import type { PaymeStormReport } from '../../../packages/storm/src/payme/run-payme-storm.js';
import type { StormReport } from '../../../packages/storm/src/storm-report.js';
import type { TelegramStormReport } from '../../../packages/storm/src/telegram/run-telegram-storm.js';
import type { UzumStormReport } from '../../../packages/storm/src/uzum/run-uzum-storm.js';
import type { PayonceRun } from './run-payonce.js';

/** The demo's JSON report: the storm report plus what the demo adds. */
export type DemoReportFile = StormReport & {
  readonly payme: PaymeStormReport;
  readonly click: ClickStormReport;
  readonly uzum: UzumStormReport;
  readonly telegram: TelegramStormReport;
  readonly demo: {
    readonly database: string;
    readonly restarts: ReadonlyArray<{ fromPid: number; toPid: number }>;
    readonly replicas?: readonly string[];
  };
};

/** The replica scenarios: skipped against one service, run (and passed) with `--replicas N`. */
const REPLICA_SCENARIOS = [19, 20, 21, 22];
const SCENARIOS = 22;
const PAYME_SCENARIOS = 11;
/** The lines that open the Payme, Click and Uzum storms' parts of the output. */
const PAYME_PLAN = /^running 11 Payme scenarios, .*$/m;
const CLICK_PLAN = /^running 10 Click scenarios, .*$/m;
const UZUM_PLAN = /^running 10 Uzum scenarios, .*$/m;
const TELEGRAM_PLAN = /^running 8 Telegram scenarios, .*$/m;
/** Click and Uzum storm scenarios (each has one crash, scenario 8). */
const LOCAL_SCENARIOS = 10;
/** Telegram storm scenarios (its crash is scenario 8 too). */
const TELEGRAM_SCENARIOS = 8;

/**
 * Asserts what a user relies on after `payonce demo [--replicas N] --report FILE` passed: exit 0, a row for each of
 * the 22 scenarios in the table (`pass`, or `skip` for the replica scenarios 19–22 with one replica), the PASS
 * summary, a JSON report with the same verdicts, that scenario 16 restarted the service before its re-sends, and
 * that scenario 12 really killed a service child (a random
 * replica with several) and its supervisor restarted it (the printed restart line, the report's restart record and
 * the storm's own note agree on the pids); with several replicas scenario 21 killed and restarted one too. Then the
 * Payme, Click, Uzum and Telegram storms' parts: their rows all `pass`, their PASS summaries, their reports under
 * `payme`, `click`, `uzum`, `telegram`, and each one's crash scenario 8 killed the (first) service and the supervisor
 * restarted it: the last four restarts of the run, in that order.
 * Returns the report.
 */
export async function expectFullDemoPassed(run: PayonceRun, reportPath: string, replicas = 1): Promise<DemoReportFile> {
  const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  const skipped = replicas > 1 ? [] : REPLICA_SCENARIOS;
  expect(run.code, context).toBe(0);
  const plans = [PAYME_PLAN, CLICK_PLAN, UZUM_PLAN, TELEGRAM_PLAN].map((plan) => run.stdout.search(plan));
  const [paymeAt, clickAt, uzumAt, telegramAt] = plans as [number, number, number, number];
  expect([paymeAt > 0, clickAt > paymeAt, uzumAt > clickAt, telegramAt > uzumAt], context).toEqual([
    true,
    true,
    true,
    true,
  ]);
  const stripePart = run.stdout.slice(0, paymeAt);
  const paymePart = run.stdout.slice(paymeAt, clickAt);
  const [clickPart, uzumPart] = [run.stdout.slice(clickAt, uzumAt), run.stdout.slice(uzumAt, telegramAt)];
  const telegramPart = run.stdout.slice(telegramAt);
  const rowsOf = (text: string) => text.split('\n').filter((line) => /^\s?\d{1,2} \S/.test(line));
  const rows = rowsOf(stripePart);
  expect(rows, context).toHaveLength(SCENARIOS);
  for (const row of rows) {
    const id = Number(row.trim().split(' ')[0]);
    expect(row, context).toMatch(skipped.includes(id) ? /\sskip$/ : /\spass$/);
  }
  const passed = SCENARIOS - skipped.length;
  const summary =
    skipped.length > 0
      ? `PASS: ${passed}/${SCENARIOS} scenarios \\(${skipped.length} skipped: ${skipped.join(', ')}\\), \\d+ deliveries`
      : `PASS: ${passed}/${SCENARIOS} scenarios, \\d+ deliveries`;
  expect(run.stdout, context).toMatch(new RegExp(`^${summary} \\(\\d+ duplicates\\), .* s$`, 'm'));
  expect(stripePart).toMatch(/^pass 12\. crash after.*\[20 of 22 finished\]$/m);
  const paymeRows = rowsOf(paymePart);
  expect(paymeRows, context).toHaveLength(PAYME_SCENARIOS);
  for (const row of paymeRows) expect(row, context).toMatch(/\spass$/);
  expect(paymePart, context).toMatch(/^PASS: 11\/11 Payme scenarios, \d+ calls, .* s$/m);
  for (const [part, name] of [
    [clickPart, 'Click'],
    [uzumPart, 'Uzum'],
  ] as const) {
    const localRows = rowsOf(part);
    expect(localRows, context).toHaveLength(LOCAL_SCENARIOS);
    for (const row of localRows) expect(row, context).toMatch(/\spass$/);
    expect(part, context).toMatch(new RegExp(`^PASS: 10/10 ${name} scenarios, \\d+ calls, .* s$`, 'm'));
  }
  const telegramRows = rowsOf(telegramPart);
  expect(telegramRows, context).toHaveLength(TELEGRAM_SCENARIOS);
  for (const row of telegramRows) expect(row, context).toMatch(/\spass$/);
  expect(telegramPart, context).toMatch(/^PASS: 8\/8 Telegram scenarios, \d+ calls, .* s$/m);

  const report = JSON.parse(await readFile(reportPath, 'utf8')) as DemoReportFile;
  expect(report.passed).toBe(true);
  expect(report.results.map((r) => r.id)).toEqual(Array.from({ length: SCENARIOS }, (_, i) => i + 1));
  for (const result of report.results) {
    expect(result.verdict, `scenario ${result.id}`).toBe(skipped.includes(result.id) ? 'skip' : 'pass');
  }

  const restartLine = /^service (?:replica (\d+) )?restarted \(pid (\d+) → (\d+)\) after it was killed by SIGKILL$/gm;
  const restarts = [...run.stdout.matchAll(restartLine)].map((m) => ({ fromPid: Number(m[2]), toPid: Number(m[3]) }));
  expect(restarts, context).toHaveLength(replicas > 1 ? 7 : 6);
  for (const { fromPid, toPid } of restarts) {
    expect(fromPid).not.toBe(toPid);
    // The killed pid was printed when it started: "(pid X)", or as a restart's new pid "→ X)" (killed twice).
    expect(run.stdout).toMatch(new RegExp(`(\\(pid|→) ${fromPid}\\)`));
  }
  expect(report.demo.restarts).toEqual(restarts.map((r) => expect.objectContaining(r)));
  const crash = report.results.find((r) => r.id === 12)!;
  const [first] = restarts;
  // One fulfilment per paid order: a crash scenario may take a second order when the first job finished before the
  // kill could land ("trying a new order"), so the count follows the charges, never above them.
  const oncePerPaidOrder = (counts: { charges: number; paidTransitions: number; fulfilments: number }) => {
    expect(counts.charges).toBeGreaterThanOrEqual(1);
    expect([counts.paidTransitions, counts.fulfilments]).toEqual([counts.charges, counts.charges]);
  };
  oncePerPaidOrder(crash.counts);
  const killed = replicas > 1 ? `of ${replicas}, pid ${first!.fromPid} with` : `killed pid ${first!.fromPid} with`;
  expect(crash.notes.join('\n')).toContain(killed);
  expect(crash.notes.join('\n')).toContain(`restarted as pid ${first!.toPid}`);
  // Scenario 16 restarts the service (a replica) before its re-sends: receipts must outlive the process.
  const resent = report.results.find((r) => r.id === 16)!;
  expect(resent.notes.join('\n')).toContain(`(pid ${restarts[1]!.fromPid} killed, back as pid ${restarts[1]!.toPid})`);
  expect([resent.counts.paidTransitions, resent.counts.fulfilments]).toEqual([1, 1]);
  if (replicas > 1) {
    const midFulfilment = report.results.find((r) => r.id === 21)!;
    oncePerPaidOrder(midFulfilment.counts);
    expect(midFulfilment.notes.join('\n')).toContain(`(pid ${restarts[2]!.fromPid}) mid-fulfilment`);
  }

  expect(report.payme.passed).toBe(true);
  expect(report.payme.results.map((r) => [r.id, r.verdict])).toEqual(
    Array.from({ length: PAYME_SCENARIOS }, (_, i) => [i + 1, 'pass']),
  );
  for (const [i, local] of [report.payme, report.click, report.uzum, report.telegram].entries()) {
    expect(local.passed).toBe(true);
    const crashed = local.results.find((r) => r.id === 8)!;
    const restart = restarts.at(i - 4)!;
    expect(crashed.notes.join('\n')).toContain(`killed pid ${restart.fromPid}, restarted as pid ${restart.toPid}`);
  }
  expect(report.click.results.map((r) => r.verdict)).toEqual(Array(LOCAL_SCENARIOS).fill('pass'));
  expect(report.uzum.results.map((r) => r.verdict)).toEqual(Array(LOCAL_SCENARIOS).fill('pass'));
  expect(report.telegram.results.map((r) => r.verdict)).toEqual(Array(TELEGRAM_SCENARIOS).fill('pass'));
  return report;
}

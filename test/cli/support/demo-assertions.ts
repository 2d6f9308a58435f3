import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import type { StormReport } from '../../../src/storm/storm-report.js';
import type { PayonceRun } from './run-payonce.js';

/** The demo's JSON report: the storm report plus what the demo adds. */
export type DemoReportFile = StormReport & {
  readonly demo: { readonly database: string; readonly restarts: ReadonlyArray<{ fromPid: number; toPid: number }> };
};

/**
 * Asserts what a user relies on after `payonce demo --report FILE` passed: exit 0, a `pass` row for each of the 18
 * scenarios in the table, the PASS summary, a JSON report listing all 18 scenarios as passed, and that scenario 12
 * really killed the service child and the supervisor restarted it (the printed restart line, the report's
 * restart record and the storm's own note agree on the pids). Returns the report.
 */
export async function expectFullDemoPassed(run: PayonceRun, reportPath: string): Promise<DemoReportFile> {
  const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  expect(run.code, context).toBe(0);
  const rows = run.stdout.split('\n').filter((line) => /^\s?\d{1,2} \S/.test(line));
  expect(rows, context).toHaveLength(18);
  for (const row of rows) expect(row, context).toMatch(/\spass$/);
  expect(run.stdout, context).toMatch(/^PASS: 18\/18 scenarios, \d+ deliveries \(\d+ duplicates\), .* s$/m);
  expect(run.stdout).toMatch(/^pass {2}12\. crash after.*\[18 of 18 finished\]$/m);

  const report = JSON.parse(await readFile(reportPath, 'utf8')) as DemoReportFile;
  expect(report.passed).toBe(true);
  expect(report.results.map((r) => r.id)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
  expect(report.results.every((r) => r.verdict === 'pass')).toBe(true);

  const restart = /^service restarted \(pid (\d+) → (\d+)\) after it was killed by SIGKILL$/m.exec(run.stdout);
  expect(restart, context).not.toBeNull();
  const [fromPid, toPid] = [Number(restart![1]), Number(restart![2])];
  expect(fromPid).not.toBe(toPid);
  expect(run.stdout).toContain(`(pid ${fromPid})`);
  expect(report.demo.restarts).toEqual([expect.objectContaining({ fromPid, toPid })]);
  const crash = report.results.find((r) => r.id === 12)!;
  expect(crash.counts.fulfilments).toBe(1);
  expect(crash.notes.join('\n')).toContain(`killed pid ${fromPid} with the fulfilment job running`);
  expect(crash.notes.join('\n')).toContain(`restarted as pid ${toPid}`);
  return report;
}

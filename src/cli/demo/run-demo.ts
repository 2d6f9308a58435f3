import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { emptyTally } from './delivery.js';
import { openDemoWorld } from './demo-world.js';
import { DEMO_SCENARIOS, runScenario, type ScenarioResult } from './scenarios.js';

/** Options of `runDemo`. */
export interface DemoOptions {
  /** SQLite file to use; a fresh file in a new temporary directory (removed afterwards) when omitted. */
  readonly databasePath?: string;
  /** Simulated worker processes, each with its own connection. @default 3 */
  readonly workers?: number;
}

/** The demo's verdict: one row per scenario. */
export interface DemoReport {
  readonly databasePath: string;
  readonly results: ReadonlyArray<ScenarioResult & { readonly name: string }>;
  readonly passed: boolean;
  readonly durationMs: number;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  return rows.map((row) =>
    row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!))).join('  '),
  );
}

/**
 * `payonce demo`: runs every receipt scenario (duplicates in a row and in parallel, a shuffled storm, failure and
 * redelivery, a worker dying mid-handler, a tampered body, payment + refund, transactional commit) against a real
 * SQLite file shared by several worker connections, prints progress, a table and a one-line summary.
 * Returns the report; `passed` is true only if every event of every scenario was fulfilled exactly once and
 * each scenario's own criterion held.
 */
export async function runDemo(io: CliIo, options: DemoOptions = {}): Promise<DemoReport> {
  const started = Date.now();
  const tempDir = options.databasePath ? null : await mkdtemp(join(tmpdir(), 'payonce-demo-'));
  const databasePath = options.databasePath ?? join(tempDir!, 'payonce-demo.sqlite');
  io.out(`payonce demo: receipts on SQLite file ${databasePath}, ${options.workers ?? 3} workers`);
  const world = await openDemoWorld(databasePath, options.workers ?? 3, 30_000);
  const results: Array<ScenarioResult & { name: string }> = [];
  try {
    for (const [index, scenario] of DEMO_SCENARIOS.entries()) {
      const result = await runScenario(world, scenario, emptyTally());
      results.push({ name: scenario.name, ...result });
      io.out(
        `[${index + 1}/${DEMO_SCENARIOS.length}] ${result.passed ? 'pass' : 'FAIL'}  ${scenario.name}: ${result.detail}`,
      );
    }
  } finally {
    await world.close();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  }
  const header = ['scenario', 'deliveries', 'runs', 'replays', '409', '422', '5xx', 'events', 'fulfilled', 'verdict'];
  const rows = results.map((r) =>
    [
      r.name,
      ...[
        r.tally.deliveries,
        r.tally.handlerRuns,
        r.tally.replays,
        r.tally.inProgress,
        r.tally.rejected,
        r.tally.failed,
      ],
      ...[r.events, r.fulfilments].map(String),
      r.passed ? 'pass' : 'FAIL',
    ].map(String),
  );
  io.out('');
  for (const line of table([header, ...rows])) io.out(line);
  const passed = results.every((r) => r.passed);
  const deliveries = results.reduce((sum, r) => sum + r.tally.deliveries, 0);
  const events = results.reduce((sum, r) => sum + r.events, 0);
  const fulfilments = results.reduce((sum, r) => sum + r.fulfilments, 0);
  const durationMs = Date.now() - started;
  io.out('');
  io.out(
    `${passed ? 'PASS' : 'FAIL'}: ${results.filter((r) => r.passed).length}/${results.length} scenarios, ` +
      `${deliveries} deliveries of ${events} events, ${fulfilments} fulfilments, ${durationMs} ms`,
  );
  return { databasePath, results, passed, durationMs };
}

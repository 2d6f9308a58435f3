import { describe, expect, it } from 'vitest';
import { progressLine, stormPlanLine } from '../../packages/cli/src/storm-progress.js';
import { KILLING_SCENARIO_IDS } from '../../packages/storm/src/all-scenarios.js';
import type { ScenarioResult } from '../../packages/storm/src/scenario.js';
import { runPayonce } from './support/run-payonce.js';

// Issue #11 item 17: `demo --only none` without `--serve` started everything and exited 0 silently; the progress
// counter and the scenario numbers interleaved (`[7/18] pass  8.`), reading like "scenario 7 is scenario 8".

const result = (id: number, name: string): ScenarioResult =>
  ({ id, name, verdict: 'pass', reasons: [], durationMs: 765 }) as unknown as ScenarioResult;

describe('storm progress lines', () => {
  it('lead with the verdict and the scenario number; the finishing count comes last and says what it counts', () => {
    const line = progressLine({ kind: 'finished', result: result(8, 'same webhook twice'), index: 7, total: 18 });
    expect(line).toBe('pass  8. same webhook twice (765 ms)  [7 of 18 finished]');
    expect(line).not.toMatch(/^\[\d+\/\d+\]/);
    const started = progressLine({ kind: 'started', id: 12, name: 'crash after', index: 18, total: 18 });
    expect(started).toBe('start 12. crash after  [18 of 18 started]');
    // One-digit numbers are padded, so the names of scenarios 8 and 10 start in the same column.
    const ten = progressLine({ kind: 'finished', result: result(10, 'x'), index: 8, total: 18 });
    expect(ten.indexOf('x')).toBe(line.indexOf('same'));
    expect(progressLine({ kind: 'started', id: 8, name: 'y', index: 1, total: 2 })).toBe(
      'start  8. y  [1 of 2 started]',
    );
  });

  it('are announced by a line that says why they come in finishing order', () => {
    const plan = stormPlanLine(18, 4, KILLING_SCENARIO_IDS);
    expect(plan).toContain('18 scenarios, 4 at a time');
    expect(plan).toContain('scenario 12');
    expect(plan).toMatch(/in the order they finish; the table below is in scenario order/);
    expect(stormPlanLine(2, 4, KILLING_SCENARIO_IDS, [8, 12])).toContain(
      '(scenario 12, which kills a service process, runs alone at the end)',
    );
    expect(stormPlanLine(2, 4, KILLING_SCENARIO_IDS, [8, 9])).toBe(
      'running 2 scenarios, 2 at a time: lines come in the order they finish; the table below is in scenario order',
    );
  });
});

describe('payonce demo --only none', () => {
  it('without --serve is a usage error (exit 2) that says to add --serve, and starts nothing', async () => {
    const run = await runPayonce(['demo', '--only', 'none'], { DATABASE_URL: '', PAYONCE_DATABASE_URL: '' }, 60_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--only none runs no scenario: add --serve');
    expect(run.stdout).not.toContain('sandbox provider');
  });
});

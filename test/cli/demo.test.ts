import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.js';
import { demoEvent, emptyTally } from '../../src/cli/demo/delivery.js';
import { type DemoWorld, openDemoWorld } from '../../src/cli/demo/demo-world.js';
import { runDemo } from '../../src/cli/demo/run-demo.js';
import { runScenario } from '../../src/cli/demo/scenarios.js';
import { runCli } from '../../src/cli/run-cli.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

describe('payonce demo', () => {
  it('passes every scenario on a fresh SQLite file and prints the table and summary', async () => {
    const io = capture();
    const report = await runDemo(io);
    expect(report.passed).toBe(true);
    const storm = report.results.find((r) => r.name.startsWith('storm'));
    expect(storm?.tally.handlerRuns).toBe(300);
    expect(storm?.fulfilments).toBe(300);
    expect(storm?.tally.deliveries).toBeGreaterThanOrEqual(1_200);
    expect(io.lines.some((line) => /^PASS: 8\/8 scenarios/.test(line))).toBe(true);
    expect(io.lines.some((line) => line.startsWith('scenario') && line.includes('fulfilled'))).toBe(true);
  });

  it('exits 0 through the CLI and 2 for a bad --workers value', async () => {
    expect(await runCli(['demo', '--workers', '2'], capture())).toBe(0);
    const io = capture();
    expect(await runCli(['demo', '--workers', '0'], io)).toBe(2);
    expect(io.lines.join('\n')).toContain('--workers');
  });

  describe('the judge', () => {
    let dir: string;
    let world: DemoWorld;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'payonce-judge-'));
      world = await openDemoWorld(join(dir, 'judge.sqlite'), 2, 30_000);
    });
    afterAll(async () => {
      await world.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('fails a scenario whose event was fulfilled twice, as an unguarded handler would', async () => {
      const event = demoEvent('unguarded', 1);
      const result = await runScenario(
        world,
        {
          name: 'unguarded duplicate',
          criterion: 'never holds',
          async run(w) {
            await w.fulfil(w.workers[0]!, event.effectId, event.amountMinor);
            await w.fulfil(w.workers[1]!, event.effectId, event.amountMinor);
            return { events: [event] };
          },
        },
        emptyTally(),
      );
      expect(result.passed).toBe(false);
      expect(result.fulfilments).toBe(2);
      expect(result.detail).toContain('not fulfilled exactly once');
    });
  });
});

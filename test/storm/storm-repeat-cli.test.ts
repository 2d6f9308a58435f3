import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { findFreePort } from '../../packages/cli/src/demo/free-port.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import type { StormRepeatReport } from '../../packages/storm/src/repeat-storm.js';
import { elementsNamed, parseXml } from './junit-xml.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

/** `payonce storm --adapter … --repeat N --html FILE`: the in-process reference service, broken and not. */
describe('payonce storm --repeat and --html', () => {
  let dir: string;
  const adapters = join(import.meta.dirname, 'adapters');
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-storm-repeat-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const stormRun = async (adapter: string, only: string, extra: string[]) => {
    const io = capture();
    const url = `http://127.0.0.1:${await findFreePort()}`;
    const files = {
      report: join(dir, `${adapter}.json`),
      junit: join(dir, `${adapter}.xml`),
      html: join(dir, `${adapter}.html`),
    };
    const args = ['storm', '--adapter', join(adapters, adapter), '--url', url, '--only', only];
    const reports = ['--report', files.report, '--junit', files.junit, '--html', files.html];
    const code = await runCli([...args, ...reports, ...extra], io);
    return { code, text: io.lines.join('\n'), files };
  };

  it('runs N times with fresh seeds, counts the failed runs per scenario, names every broken order with its seed', async () => {
    const faults = join(dir, 'faults.json');
    const rule = { method: 'POST', path: '/v1/payment_intents', fault: 'delay=5', probability: 1 };
    await writeFile(faults, JSON.stringify({ rules: [rule] }));
    const { code, text, files } = await stormRun('signature-check-off.adapter.ts', '8,18', [
      '--repeat',
      '2',
      '--faults',
      faults,
    ]);
    expect(code, text).toBe(1);
    const report = JSON.parse(await readFile(files.report, 'utf8')) as StormRepeatReport;
    expect(report.runs).toHaveLength(2);
    expect(new Set(report.seeds).size).toBe(2);
    for (const seed of report.seeds) expect(text).toMatch(new RegExp(`run \\d of 2: seed ${seed}, FAIL`));
    expect(report.scenarios.map((s) => [s.id, s.failedRuns, s.runs])).toEqual([
      [8, 0, 2],
      [18, 2, 2],
    ]);
    expect(text).toMatch(
      /18\. forged event rejected before any business action: failed in 2 of 2 runs \(--seed \d+, --seed \d+\)/,
    );
    const broken = report.brokenOrders.filter((o) => o.scenarioId === 18);
    expect(broken.map((o) => o.seed).sort()).toEqual([...report.seeds].sort());
    expect(text).toMatch(new RegExp(`broken: order ${broken[0]?.orderId} in scenario 18, --seed ${broken[0]?.seed}`));
    const suites = elementsNamed(parseXml(await readFile(files.junit, 'utf8')), 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual(
      report.seeds.map((seed, i) => `payonce storm (run ${i + 1} of 2, seed ${seed})`),
    );
    const html = await readFile(files.html, 'utf8');
    expect(html).toMatch(/<h2>2 runs<\/h2>/);
    for (const seed of report.seeds) expect(html).toContain(`data-seed="${seed}"`);
    // The app's create call to the sandbox, in an order's timeline, with the fault the --faults rule injected.
    expect(html).toMatch(/POST \/v1\/payment_intents<\/td><td>200<\/td>.*?<td>[^<]*delay=5/);
  }, 240_000);

  it('--repeat with --seed is a usage error', async () => {
    const io = capture();
    const args = ['storm', '--adapter', 'x.ts', '--url', 'http://127.0.0.1:9', '--repeat', '2', '--seed', '5'];
    expect(await runCli(args, io)).toBe(2);
    expect(io.lines.join('\n')).toMatch(/--repeat draws a fresh seed for every run: leave out --seed/);
  });
});

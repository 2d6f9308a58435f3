import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import type { StormReport } from '../../packages/storm/src/storm-report.js';
import { signatureCheckOff } from './faulty-services.js';
import { type StormWorld, startStormWorld } from './storm-harness.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

describe('payonce storm (CLI)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-storm-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['no --target/--provider', ['storm'], /required option/],
    [
      'an unknown scenario',
      ['storm', '--target', 'http://127.0.0.1:9', '--provider', 'http://127.0.0.1:9', '--only', '23'],
      /no scenario 23/,
    ],
    [
      'a malformed --only',
      ['storm', '--target', 'http://127.0.0.1:9', '--provider', 'http://127.0.0.1:9', '--only', '1,x'],
      /--only takes scenario numbers/,
    ],
    [
      'a target that is not a URL',
      ['storm', '--target', 'localhost', '--provider', 'http://127.0.0.1:9'],
      /target: must be an http\(s\) URL/,
    ],
    [
      'a bad --timeout-ms',
      ['storm', '--target', 'http://127.0.0.1:9', '--provider', 'http://127.0.0.1:9', '--timeout-ms', '5'],
      /timeoutMs: must be an integer from 1000/,
    ],
  ])('exits 2 for %s', async (_what, args, message) => {
    const io = capture();
    expect(await runCli(args, io)).toBe(2);
    expect(io.lines.join('\n')).toMatch(message);
  });

  it('storm init writes the commented adapter template once, and never overwrites', async () => {
    const file = join(dir, 'storm.adapter.ts');
    const io = capture();
    expect(await runCli(['storm', 'init', file], io), io.lines.join('\n')).toBe(0);
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/export default function adapter\(setup: StormAppSetup\): StormAppAdapter/);
    expect(text).toMatch(/PAYONCE_STORM_SANDBOX_URL/);
    const { transpileModule } = await import('typescript');
    const out = transpileModule(text, { reportDiagnostics: true, compilerOptions: { module: 99, target: 99 } });
    expect(out.diagnostics ?? []).toEqual([]);
    const again = capture();
    expect(await runCli(['storm', 'init', file], again)).toBe(2);
    expect(again.lines.join('\n')).toMatch(/exists already/);
  });

  it('exits 1 with a clear message when the service does not answer', async () => {
    const io = capture();
    expect(await runCli(['storm', '--target', 'http://127.0.0.1:9', '--provider', 'http://127.0.0.1:9'], io)).toBe(1);
    expect(io.lines.join('\n')).toMatch(/the service does not answer at http:\/\/127\.0\.0\.1:9\/healthz/);
  });

  it('still writes the JSON report, saying why nothing ran, when the service does not answer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'payonce-storm-down-'));
    try {
      const file = join(dir, 'report.json');
      const args = ['storm', '--target', 'http://127.0.0.1:9', '--provider', 'http://127.0.0.1:9', '--report', file];
      expect(await runCli(args, capture())).toBe(1);
      const report = JSON.parse(await readFile(file, 'utf8')) as { passed: boolean; error: { code: string } };
      expect(report).toMatchObject({ passed: false, error: { code: 'STORM_TARGET_UNAVAILABLE' }, results: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('against a live service', () => {
    let good: StormWorld;
    let broken: StormWorld;
    beforeAll(async () => {
      [good, broken] = await Promise.all([startStormWorld(), startStormWorld(signatureCheckOff)]);
    });
    afterAll(async () => {
      await Promise.all([good?.close(), broken?.close()]);
    });

    it('exits 0 and prints progress, the table and the summary when every scenario passes', async () => {
      const io = capture();
      const code = await runCli(
        ['storm', '--target', good.service.url, '--provider', good.sandbox.url, '--only', '8,9', '--seed', '7'],
        io,
      );
      expect(code, io.lines.join('\n')).toBe(0);
      expect(io.lines).toContain("seed 7 (--seed 7 replays the run's random choices)");
      expect(io.lines).toContain('start  8. same webhook twice  [1 of 2 started]');
      expect(io.lines.some((line) => line.startsWith('running 2 scenarios'))).toBe(true);
      expect(io.lines.some((line) => /^pass {2}9\. two events, one payment.*\[\d of 2 finished\]$/.test(line))).toBe(
        true,
      );
      expect(io.lines.some((line) => line.startsWith('scenario') && line.endsWith('verdict'))).toBe(true);
      expect(io.lines.at(-1)).toMatch(/^PASS: 2\/2 scenarios/);
    });

    it('exits 1 and writes the JSON report when a scenario fails', async () => {
      const io = capture();
      const file = join(dir, 'report.json');
      const args = ['storm', '--target', broken.service.url, '--provider', broken.sandbox.url, '--only', '18,8'];
      expect(await runCli([...args, '--report', file], io)).toBe(1);
      const report = JSON.parse(await readFile(file, 'utf8')) as StormReport;
      expect(report.passed).toBe(false);
      expect(report.results.map((r) => [r.id, r.verdict])).toEqual([
        [8, 'pass'],
        [18, 'fail'],
      ]);
      const failed = report.results[1];
      expect(failed?.reasons.join('\n')).toMatch(/the forged event answered 200, expected 4xx/);
      expect(failed?.orders[0]).toMatchObject({ charges: 1, fulfilments: 1 });
      expect(failed?.counts.deliveriesSent).toBeGreaterThanOrEqual(3);
      const text = io.lines.join('\n');
      expect(text).toMatch(/^FAIL 18: the forged event answered 200/m);
      expect(text).toMatch(/^FAIL: 1 of 2 scenarios failed \(18\)/m);
      expect(text).toMatch(/payonce storm: scenario\(s\) failed: 18/);
    });
  });
});

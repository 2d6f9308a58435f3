import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { findFreePort } from '../../packages/cli/src/demo/free-port.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import type { StormReport } from '../../packages/storm/src/storm-report.js';
import { signatureCheckOff } from './faulty-services.js';
import { elementsNamed, parseXml } from './junit-xml.js';
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
      expect(io.lines).toContain("seed 7 (--seed 7 replays the run's random choices and the sandbox's faults)");
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

  describe('--adapter: your own app', () => {
    const adapters = join(import.meta.dirname, 'adapters');
    const adapterRun = async (file: string, only: string, extra: string[] = []) => {
      const io = capture();
      const junit = join(dir, `${file}.${only}.junit.xml`);
      const url = `http://127.0.0.1:${await findFreePort()}`;
      const args = ['storm', '--adapter', join(adapters, file), '--url', url, '--only', only, '--junit', junit];
      const code = await runCli([...args, ...extra], io);
      const xml = await readFile(junit, 'utf8').catch(() => '');
      return { code, text: io.lines.join('\n'), xml };
    };

    it.each([
      ['neither --url nor --start', ['storm', '--adapter', 'x.ts'], /--adapter needs --url .* or --start/],
      [
        '--adapter with --target',
        ['storm', '--adapter', 'x.ts', '--target', 'http://127.0.0.1:9'],
        /leave out --target/,
      ],
      ['--start without --adapter', ['storm', '--start', 'true'], /--start goes with --adapter/],
      [
        'a missing adapter file',
        ['storm', '--adapter', 'no-such.adapter.ts', '--url', 'http://127.0.0.1:9'],
        /no such file/,
      ],
      [
        'an adapter file without a default export',
        ['storm', '--adapter', join(import.meta.dirname, 'junit-xml.ts'), '--url', 'http://127.0.0.1:9'],
        /must have a default export/,
      ],
    ])('exits 2 for %s', async (_what, args, message) => {
      const io = capture();
      expect(await runCli(args, io)).toBe(2);
      expect(io.lines.join('\n')).toMatch(message);
    });

    // Found by an attacker: a factory throwing a non-Error printed `payonce storm: [object Object]`.
    it('prints what an adapter factory threw when it is not an Error', async () => {
      const run = await adapterRun('throws-object.adapter.mjs', '8');
      expect(run.code, run.text).toBe(1);
      expect(run.text).toMatch(/^payonce storm: \{ code: 'E_SHOP_CONFIG', detail: 'SHOP_DATABASE_URL is not set' \}$/m);
      expect(run.text).not.toMatch(/\[object Object\]/);
    });

    it('runs a TypeScript adapter file (the reference service) on its own sandbox: exit 0, JUnit names the skip', async () => {
      const run = await adapterRun('reference-service.adapter.ts', '8,9,14', ['--seed', '11']);
      expect(run.code, run.text).toBe(0);
      expect(run.text).toMatch(/^PASS: 2\/3 scenarios/m);
      const suite = parseXml(run.xml);
      expect(suite.attrs).toMatchObject({ tests: '3', failures: '0', skipped: '1' });
      const cases = elementsNamed(suite, 'testcase');
      expect(cases.map((c) => c.attrs.name)).toEqual([
        '8. same webhook twice',
        '9. two events, one payment, different ids',
        expect.stringMatching(/^14\. /),
      ]);
      const skipped = elementsNamed(cases[2] as never, 'skipped')[0];
      expect(skipped?.attrs.message).toMatch(/lacks rerunFulfilment/);
      expect(elementsNamed(suite, 'property').find((p) => p.attrs.name === 'seed')?.attrs.value).toBe('11');
    });

    it('exits 1 for a broken app, and the JUnit failure names the violation', async () => {
      const run = await adapterRun('signature-check-off.adapter.ts', '8,18');
      expect(run.code, run.text).toBe(1);
      const suite = parseXml(run.xml);
      expect(suite.attrs).toMatchObject({ tests: '2', failures: '1' });
      const [passed, failed] = elementsNamed(suite, 'testcase');
      expect(elementsNamed(passed as never, 'failure')).toEqual([]);
      const failure = elementsNamed(failed as never, 'failure')[0];
      expect(failure?.attrs.message).toMatch(/the forged event answered 200, expected 4xx/);
      expect(failure?.text).toMatch(/^criterion: /);
    });

    it('--start runs the app with the storm’s setup in its environment and stops it by its pid', async () => {
      const app = `node ${JSON.stringify(join(adapters, 'healthz-app.mjs'))}`;
      const io = capture();
      const junit = join(dir, 'healthz.junit.xml');
      const args = ['storm', '--adapter', join(adapters, 'healthz-app.adapter.mjs'), '--start', app, '--only', '19'];
      expect(await runCli([...args, '--junit', junit], io), io.lines.join('\n')).toBe(0);
      const pid = (globalThis as { stormHealthzAppPid?: number }).stormHealthzAppPid;
      expect(pid).toBeTypeOf('number');
      // Gone: no such process, or a zombie its new parent has not reaped yet.
      const state = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => 'gone');
      expect(state === 'gone' || / Z /.test(state), state).toBe(true);
      expect(io.lines.join('\n')).toMatch(/app: stopped \(pid \d+\)/);
      const skipped = elementsNamed(parseXml(await readFile(junit, 'utf8')), 'skipped');
      expect(skipped[0]?.attrs.message).toMatch(/lacks replicas/);
    });

    it('exits 1, with the reports saying why, when the started app dies before it is healthy', async () => {
      const io = capture();
      const report = join(dir, 'dead.json');
      const junit = join(dir, 'dead.junit.xml');
      const args = ['storm', '--adapter', join(adapters, 'healthz-app.adapter.mjs'), '--start', 'echo boom; exit 3'];
      expect(await runCli([...args, '--report', report, '--junit', junit], io)).toBe(1);
      expect(io.lines.join('\n')).toMatch(/exited with status 3 before it was healthy; its output \(1 line\):\nboom/);
      expect(JSON.parse(await readFile(report, 'utf8'))).toMatchObject({ error: { code: 'STORM_TARGET_UNAVAILABLE' } });
      const error = elementsNamed(parseXml(await readFile(junit, 'utf8')), 'error')[0];
      expect(error?.attrs.message).toMatch(/exited with status 3/);
    });
  });
});

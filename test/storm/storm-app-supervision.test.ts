import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { elementsNamed, parseXml } from './junit-xml.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

const adapters = join(import.meta.dirname, 'adapters');
const node = (file: string) => `node ${JSON.stringify(join(adapters, file))}`;
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** A server that answers 200 to everything, as another agent's service on "our" port would. */
async function squatter(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port };
}

/** Where a test's --junit, --html and --report go. */
const reportsIn = (dir: string, name: string) => ({
  junit: join(dir, `${name}.junit.xml`),
  html: join(dir, `${name}.html`),
  report: join(dir, `${name}.json`),
});

describe('payonce storm --adapter --start: the storm tests the app it started, and says when it dies', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-storm-supervision-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const reports = (name: string) => reportsIn(dir, name);

  it('refuses to start (exit 2) when something already answers on the --url port, and never runs the command', async () => {
    const { server, port } = await squatter();
    try {
      const marker = join(dir, 'started');
      const io = capture();
      const args = [
        'storm',
        '--adapter',
        join(adapters, 'healthz-app.adapter.mjs'),
        '--url',
        `http://127.0.0.1:${port}`,
      ];
      expect(await runCli([...args, '--start', `touch ${JSON.stringify(marker)}`], io)).toBe(2);
      expect(io.lines.join('\n')).toMatch(
        new RegExp(`--url http://127\\.0\\.0\\.1:${port}: something already accepts connections on port ${port}`),
      );
      expect(await exists(marker)).toBe(false);
    } finally {
      server.close();
    }
  });

  it('an app that exits before it is healthy: its decisive error is in the console, JUnit and HTML, secrets redacted', async () => {
    const io = capture();
    const { junit, html, report } = reports('crash');
    const args = ['storm', '--adapter', join(adapters, 'healthz-app.adapter.mjs'), '--start', node('noisy-crash.mjs')];
    expect(await runCli([...args, '--junit', junit, '--html', html, '--report', report], io)).toBe(1);
    const text = io.lines.join('\n');
    // 45 lines came after the decisive one: a tail of 20 lines lost it; the tail is 80 lines (8 KiB at most).
    expect(text).toMatch(
      /exited with status 1 before it was healthy; its last 80 lines of 87:\nboot: loading module 8 of 40\n/,
    );
    expect(text).toContain('error: role "nobody" does not exist');
    expect(text).toContain("routine: 'InitializeSessionUserId'");
    expect(text).toContain('the last words, unterminated, with the api key [redacted]'); // flushed at exit
    expect(text).not.toMatch(/sk_test_storm_|whsec_|storm-payme-key-/);
    expect(text).toContain('config: webhook secret [redacted], payme key [redacted]');
    const error = elementsNamed(parseXml(await readFile(junit, 'utf8')), 'error')[0];
    expect(error?.attrs.type).toBe('STORM_TARGET_UNAVAILABLE');
    expect(error?.text).toContain('error: role "nobody" does not exist');
    expect(error?.text).not.toMatch(/sk_test_storm_|whsec_|storm-payme-key-/);
    expect(await readFile(html, 'utf8')).toContain('error: role &quot;nobody&quot; does not exist');
    expect(JSON.parse(await readFile(report, 'utf8'))).toMatchObject({ passed: false, results: [] });
  });

  it('--provider payme: an app that never becomes healthy is reported in --report, --junit and --html too', async () => {
    const io = capture();
    const { junit, html, report } = reports('payme');
    const args = ['storm', '--adapter', join(adapters, 'healthz-app.adapter.mjs'), '--provider', 'payme'];
    const files = ['--junit', junit, '--html', html, '--report', report];
    expect(await runCli([...args, '--start', node('noisy-crash.mjs'), ...files], io)).toBe(1);
    expect(io.lines.join('\n')).toContain('error: role "nobody" does not exist');
    const suite = parseXml(await readFile(junit, 'utf8'));
    expect(suite.attrs.name).toBe('payonce storm --provider payme');
    expect(elementsNamed(suite, 'error')[0]?.text).toContain('error: role "nobody" does not exist');
    expect(await readFile(html, 'utf8')).toContain('payonce storm --provider payme: <span class="v-fail">failed');
    expect(JSON.parse(await readFile(report, 'utf8'))).toMatchObject({ error: { code: 'STORM_TARGET_UNAVAILABLE' } });
  });

  it('an app that exits mid-run stops the run at once: its exit status and output, exit 1, reports name the cause', async () => {
    const io = capture();
    const { junit, html, report } = reports('dead');
    const args = ['storm', '--adapter', join(adapters, 'dying-app.adapter.mjs'), '--start', node('dying-app.mjs')];
    // Three scenarios one at a time, each of which waits for a payment the app never makes: without the stop, every
    // one would wait out its 10 s budget (and this test's 30 s budget would run out first).
    const flags = ['--only', '8,9,13', '--concurrency', '1', '--timeout-ms', '10000', '--seed', '5'];
    expect(await runCli([...args, ...flags, '--junit', junit, '--html', html, '--report', report], io)).toBe(1);
    const text = io.lines.join('\n');
    expect(text).toMatch(/the app \(node .*dying-app\.mjs"\) exited with status 7 during the run; the run was stopped/);
    expect(text).toContain('FATAL: payment worker crashed: the connection to the database was lost');
    expect(text).toContain('payment worker: using api key [redacted]');
    expect(text).not.toContain('sk_test_storm_');
    // The first scenario was running when the app died; no scenario got a verdict and the other two never started.
    expect(io.lines.filter((line) => line.startsWith('start '))).toEqual([
      expect.stringMatching(/^start {2}8\. .*\[1 of 3 started\]$/),
    ]);
    expect(io.lines.filter((line) => /\[\d+ of \d+ finished\]$/.test(line))).toEqual([]);
    expect(text).toMatch(/app: not running at the end \(it exited with status 7\)/);
    expect(JSON.parse(await readFile(report, 'utf8'))).toMatchObject({
      passed: false,
      error: { code: 'STORM_APP_EXITED', message: expect.stringMatching(/exited with status 7 during the run/) },
      results: [],
    });
    const error = elementsNamed(parseXml(await readFile(junit, 'utf8')), 'error')[0];
    expect(error?.attrs.type).toBe('STORM_APP_EXITED');
    expect(error?.text).toContain('FATAL: payment worker crashed');
    expect(await readFile(html, 'utf8')).toMatch(/STORM_APP_EXITED[\s\S]*exited with status 7 during the run/);
  });

  it('a health check answered while the started app had already exited is refused: another process answered', async () => {
    const marker = join(dir, 'answered');
    const previous = process.env.PAYONCE_TEST_MARKER;
    process.env.PAYONCE_TEST_MARKER = marker;
    try {
      const io = capture();
      // The shell exits at once; the sleep it leaves behind (same process group) holds its output open.
      const start = 'touch "$PAYONCE_TEST_MARKER"; sleep 5 & exit 5';
      const args = ['storm', '--adapter', join(adapters, 'answered-elsewhere.adapter.mjs'), '--start', start];
      expect(await runCli([...args, '--only', '8'], io)).toBe(1);
      expect(io.lines.join('\n')).toMatch(
        /something answered the health check at http:\/\/127\.0\.0\.1:\d+, but not the app the storm started: the app \(.*\) exited with status 5/,
      );
    } finally {
      if (previous === undefined) delete process.env.PAYONCE_TEST_MARKER;
      else process.env.PAYONCE_TEST_MARKER = previous;
    }
  });
});

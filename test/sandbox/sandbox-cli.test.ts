import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { sandboxBanner } from '../../packages/cli/src/commands/sandbox.js';
import { runCli } from '../../packages/cli/src/run-cli.js';

const capture = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line) };
};

describe('payonce sandbox (CLI flags)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payonce-sandbox-cli-'));
    await writeFile(join(dir, 'bad.json'), '{"rules":[{"fault":"explode"}]}');
    await writeFile(join(dir, 'not-json.json'), '{rules');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['a bad port', ['--port', 'abc'], /--port: "abc" is not a port/],
    ['a missing faults file', ['--faults', '/nonexistent/faults.json'], /--faults: cannot read/],
    ['an unknown fault in the file', ['--faults', 'bad.json'], /unknown fault "explode"/],
    ['a faults file that is not JSON', ['--faults', 'not-json.json'], /not JSON/],
    ['a non-loopback webhook URL', ['--webhook-url', 'http://example.com/hook'], /must be http:\/\/ on 127\.0\.0\.1/],
    ['an unknown retry schedule', ['--retry-schedule', 'hourly'], /Allowed choices/],
  ])('exits 2 for %s', async (_what, args, message) => {
    const io = capture();
    const resolved = args.map((arg) => (arg.endsWith('.json') && !arg.startsWith('/') ? join(dir, arg) : arg));
    expect(await runCli(['sandbox', ...resolved], io)).toBe(2);
    expect(io.lines.join('\n')).toMatch(message);
  });

  it('prints the SDK line and never echoes a secret that was given', () => {
    const endpoint = { id: 'we_1', url: 'http://127.0.0.1:3000/webhooks/stripe', secret: 'whsec_given' };
    const given = sandboxBanner('http://127.0.0.1:12111', 12111, [endpoint], true).join('\n');
    expect(given).toContain("new Stripe('sk_test_…', { host: '127.0.0.1', port: 12111, protocol: 'http' })");
    expect(given).not.toContain('whsec_given');
    expect(sandboxBanner('http://127.0.0.1:1', 1, [endpoint], false).join('\n')).toContain('whsec_given');
  });
});

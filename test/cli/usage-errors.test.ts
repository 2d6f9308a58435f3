import { describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/run-cli.js';

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe("commander's usage errors", () => {
  it.each([
    [['frobnicate'], "payonce: unknown command 'frobnicate'"],
    [['demo', '--frobnicate'], "payonce: unknown option '--frobnicate'"],
  ])('%j: exit 2, the payonce prefix, a pointer to --help, no stack trace', async (args, first) => {
    const { code, err, out } = await run(args);
    expect(code).toBe(2);
    expect(err.split('\n')[0]).toBe(first);
    expect(err).toContain('payonce --help');
    expect(err).not.toMatch(/\n\s+at /);
    expect(out).toBe('');
  });
});

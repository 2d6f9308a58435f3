import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tsChildArgs } from '../support/ts-child.js';

const child = fileURLToPath(new URL('./no-otel-api-child.ts', import.meta.url));
const blocker = fileURLToPath(new URL('./block-otel-api.cjs', import.meta.url));

function run(preload: string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, [...preload, ...tsChildArgs(child)], { encoding: 'utf8' });
  return JSON.parse(out) as Record<string, unknown>;
}

describe('payonce without @opentelemetry/api (an optional peer dependency)', () => {
  it('loads and guards a key when the API cannot be resolved, recording nothing', () => {
    expect(run(['--require', blocker])).toEqual({
      resolvable: false,
      api: null,
      replays: [false, true],
      recording: false,
      traceContext: null,
    });
  });

  it('finds the API when it is installed (the same child without the blocker)', () => {
    expect(run([])).toMatchObject({ resolvable: true, api: 'loaded', replays: [false, true], recording: false });
  });
});

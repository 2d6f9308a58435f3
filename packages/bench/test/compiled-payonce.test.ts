import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCH_DIR, payonceNodeArgs, payonceNodeEnv, REPO_ROOT, staleCompiledFiles } from '../lib/side-node-args.js';

const where = (env: NodeJS.ProcessEnv) =>
  execFileSync(process.execPath, [...payonceNodeArgs(), 'test/support/resolve-payonce.ts'], {
    cwd: BENCH_DIR,
    env: payonceNodeEnv({ ...process.env, ...env }),
    encoding: 'utf8',
  }).trim();

describe('bench processes run the compiled package', () => {
  it('load payonce modules from dist/ (build first), or from src/ under BENCH_SOURCES=tsx', () => {
    const library = join(REPO_ROOT, 'packages', 'payonce');
    expect(where({})).toBe(`file://${library}/dist/core/request-key.js function`);
    expect(where({ BENCH_SOURCES: 'tsx' })).toBe(`file://${library}/src/core/request-key.ts function`);
  });

  const tree = mkdtempSync(join(tmpdir(), 'payonce-stale-'));
  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  it('names every source whose compiled copy is missing or older, so the bench refuses a stale dist/', () => {
    mkdirSync(join(tree, 'src', 'core'), { recursive: true });
    mkdirSync(join(tree, 'dist', 'core'), { recursive: true });
    for (const name of ['fresh', 'stale', 'missing']) writeFileSync(join(tree, 'src', 'core', `${name}.ts`), '');
    writeFileSync(join(tree, 'src', 'core', 'types.d.ts'), '');
    writeFileSync(join(tree, 'dist', 'core', 'fresh.js'), '');
    writeFileSync(join(tree, 'dist', 'core', 'stale.js'), '');
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(tree, 'dist', 'core', 'stale.js'), past, past);
    expect(staleCompiledFiles(tree).sort()).toEqual([
      join('src', 'core', 'missing.ts'),
      join('src', 'core', 'stale.ts'),
    ]);
  });
});

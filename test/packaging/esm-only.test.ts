import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// `require('payonce')` from a CommonJS app must not fail with ERR_PACKAGE_PATH_NOT_EXPORTED, which does not say
// why. Every entry point's `require` condition now loads a tiny CommonJS file that throws "ESM only".
// The package is installed as a user gets it: `node_modules/payonce` in an app directory, linked to this checkout.

const root = fileURLToPath(new URL('../../packages/payonce/', import.meta.url));
const app = mkdtempSync(join(tmpdir(), 'payonce-cjs-app-'));
mkdirSync(join(app, 'node_modules'));
symlinkSync(root, join(app, 'node_modules', 'payonce'), 'dir');
afterAll(() => rmSync(app, { recursive: true, force: true }));

const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};
const entryPoints = Object.keys(exports)
  .filter((key) => key !== './package.json' && exports[key] !== null)
  .map((key) => key.replace('/*', '/core/errors.js'))
  .map((key) => `payonce${key.slice(1)}`);

/** Runs `source` as a file of the app (`.cjs` or `.mjs`) and returns what it printed. */
function runInApp(name: string, source: string): string {
  writeFileSync(join(app, name), source);
  return execFileSync(process.execPath, [join(app, name)], { cwd: app, encoding: 'utf8', timeout: 60_000 });
}

describe('payonce from a CommonJS app', () => {
  it('require() of every entry point throws ERR_REQUIRE_ESM saying "ESM only" and how to import it', () => {
    expect(entryPoints.length).toBeGreaterThan(10);
    const printed = runInApp(
      'require-all.cjs',
      `const results = {};
for (const name of ${JSON.stringify(entryPoints)}) {
  try { require(name); results[name] = 'loaded'; } catch (error) { results[name] = { code: error.code, message: error.message }; }
}
console.log(JSON.stringify(results));`,
    );
    const results = JSON.parse(printed) as Record<string, { code: string; message: string } | 'loaded'>;
    expect(Object.keys(results)).toEqual(entryPoints);
    for (const [name, result] of Object.entries(results)) {
      expect(result, name).toMatchObject({ code: 'ERR_REQUIRE_ESM' });
      const { message } = result as { message: string };
      expect(message, name).toContain('payonce is ESM only');
      expect(message, name).toContain('await import("payonce")');
    }
  });

  it('still imports the built package from an ES module, and from CommonJS with import()', () => {
    expect(runInApp('import.mjs', `const m = await import('payonce'); console.log(typeof m.IdempotencyGuard);`)).toBe(
      'function\n',
    );
    expect(runInApp('dynamic.cjs', `import('payonce').then((m) => console.log(typeof m.IdempotencyGuard));`)).toBe(
      'function\n',
    );
  });

  it('keeps the executable out of payonce/internal: importing it never runs the payonce command', () => {
    const printed = runInApp(
      'internal-main.mjs',
      `try { await import('payonce/internal/cli/main.js'); console.log('imported'); }
catch (error) { console.log(error.code); }`,
    );
    expect(printed).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED\n');
  });
});

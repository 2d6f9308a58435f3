import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The library package must ship docs/ (its README and `--help` link them) and src/ (its source maps point at
// src/…). `npm pack --dry-run` lists what a user gets; the built dist/ (and the docs `npm run build` copies into the
// package) must exist (npm test builds).

const root = fileURLToPath(new URL('../../packages/payonce/', import.meta.url));
const packed = (
  JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as { files: { path: string }[] }[]
)[0]?.files.map((file) => file.path);
const files = new Set(packed ?? []);

describe('the npm package', () => {
  it('ships the docs, with the design document', () => {
    for (const doc of ['docs/design.md', 'docs/errors.md', 'docs/service.md', 'docs/webhooks.md', 'README.md']) {
      expect(files.has(doc), doc).toBe(true);
    }
  });

  it('ships every document the README links to', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1] as string);
    expect(links.length).toBeGreaterThan(3);
    expect(links.filter((link) => !files.has(link))).toEqual([]);
  });

  it('ships the sources every source map points at', () => {
    const maps = [...files].filter((file) => file.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(100);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(root, map), 'utf8')) as { sources: string[] };
      for (const source of sources) {
        const target = normalize(join(dirname(map), source));
        if (!files.has(target)) missing.push(`${map} → ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('ships every file the exports map points at (types, import, and the require condition\'s "ESM only" file)', () => {
    const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
    };
    const targets = Object.entries(exports)
      .filter(([subpath, entry]) => !subpath.includes('*') && entry !== null)
      .flatMap(([, entry]) => (typeof entry === 'string' ? [entry] : Object.values(entry)));
    expect(targets).toContain('./cjs/esm-only.cjs');
    expect(targets.map((target) => normalize(target)).filter((target) => !files.has(target))).toEqual([]);
  });

  it('ships no tests, benchmarks or local state', () => {
    expect([...files].filter((file) => /^(test|bench|examples|node_modules)\//.test(file))).toEqual([]);
    expect(existsSync(join(root, 'dist/index.js'))).toBe(true);
  });

  it('ships none of the tooling: no sandbox, storm, reference service, console or command line beyond migrate', () => {
    expect([...files].filter((file) => /(^|\/)(sandbox|storm|service|console|bench)(\/|$)/.test(file))).toEqual([]);
    expect([...files].filter((file) => file.startsWith('dist/cli/')).sort()).toEqual(
      expect.arrayContaining(['dist/cli/main.js', 'dist/cli/run-migrate.js', 'dist/cli/run-payonce.js']),
    );
  });

  it('installs no tooling or optional runtime library for a user who wants the guard', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    const heavy = ['pino', 'prom-client', 'commander', 'undici', 'qs', 'fastify', 'express', 'hono'];
    const installed = Object.keys(manifest.dependencies ?? {});
    expect(installed.filter((name) => heavy.includes(name) || name.startsWith('@payonce/'))).toEqual([]);
    expect(installed.length).toBeGreaterThan(0);
  });
});

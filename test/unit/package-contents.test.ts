import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue #11 item 15: the package shipped neither docs/ (the README and `--help` link them) nor src/ (its source
// maps point at src/…). `npm pack --dry-run` lists what a user gets; the built dist/ must exist (npm test builds).

const root = fileURLToPath(new URL('../../', import.meta.url));
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
    const targets = Object.values(exports).flatMap((entry) =>
      typeof entry === 'string' ? [entry] : Object.values(entry),
    );
    expect(targets).toContain('./cjs/esm-only.cjs');
    expect(targets.map((target) => normalize(target)).filter((target) => !files.has(target))).toEqual([]);
  });

  it('ships no tests, benchmarks or local state', () => {
    expect([...files].filter((file) => /^(test|bench|examples|node_modules)\//.test(file))).toEqual([]);
    expect(existsSync(join(root, 'dist/index.js'))).toBe(true);
  });
});

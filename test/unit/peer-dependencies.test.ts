import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue #34 item 29: `@hono/node-server` is needed to serve the hono routes on Node (examples/hono/server.ts imports
// it) but was not a peer dependency. Every package the sources or the examples import is now declared: a
// dependency, or a peer dependency (optional: a user installs the drivers and frameworks they use).

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'));
const manifest = read('package.json') as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The package of a bare specifier: `hono/route` → `hono`, `@hono/node-server` → `@hono/node-server`. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Packages imported (statically or with `import()`) by the TypeScript files under `dirs`, payonce itself excluded. */
function importedPackages(dirs: string[]): string[] {
  const found = new Set<string>();
  for (const file of dirs.flatMap(tsFiles)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)'([^'.][^']*)'/g)) {
      const name = packageOf(match[1] as string);
      if (!name.startsWith('node:') && name !== 'payonce') found.add(name);
    }
  }
  return [...found].sort();
}

describe('package.json dependencies', () => {
  it('declares every package src/ and examples/ import, as a dependency or an optional peer', () => {
    const imported = importedPackages(['src', 'examples']);
    expect(imported).toContain('@hono/node-server');
    const undeclared = imported.filter((name) => !manifest.dependencies[name] && !manifest.peerDependencies[name]);
    expect(undeclared).toEqual([]);
    const required = Object.keys(manifest.peerDependencies).filter(
      (name) => manifest.peerDependenciesMeta[name]?.optional !== true,
    );
    expect(required).toEqual([]);
  });

  it('has package-lock.json in step: its root entry lists the same peer dependencies', () => {
    const lock = read('package-lock.json') as {
      packages: Record<string, { peerDependencies?: object; peerDependenciesMeta?: object }>;
    };
    const rootEntry = lock.packages[''];
    expect(rootEntry?.peerDependencies).toEqual(manifest.peerDependencies);
    expect(rootEntry?.peerDependenciesMeta).toEqual(manifest.peerDependenciesMeta);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every package a workspace package's src/ imports is declared in that package's manifest: a dependency, or a peer
// dependency (optional for drivers, frameworks and loggers: a user installs what they use). The examples are apps of
// the library's users, so what they import is declared by the library (`@hono/node-server` serves hono on Node).

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'));

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

const PACKAGES = ['payonce', 'sandbox', 'storm', 'service', 'cli'];
const manifestOf = (dir: string) => read(`packages/${dir}/package.json`) as Manifest;

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

/**
 * Example apps with a package.json of their own: what they import is declared there (the app's `npm i`), not by the
 * library. examples/nestjs brings its framework and ORM (@nestjs/*, Prisma); examples/storm-express-drizzle the
 * Stripe SDK and the storm.
 */
const OWN_MANIFEST_EXAMPLES = ['examples/nestjs', 'examples/storm-express-drizzle', 'examples/storm-nestjs-prisma'];

/** Packages imported (statically or with `import()`) by the TypeScript files under `dirs`, `self` excluded. */
function importedPackages(dirs: string[], self: string, skip: readonly string[] = []): string[] {
  const found = new Set<string>();
  const skipped = (file: string) => skip.some((dir) => file.startsWith(join(root, dir, '/')));
  for (const file of dirs.flatMap(tsFiles).filter((file) => !skipped(file))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)'([^'.][^']*)'/g)) {
      const name = packageOf(match[1] as string);
      if (!name.startsWith('node:') && name !== self) found.add(name);
    }
  }
  return [...found].sort();
}

const declared = (m: Manifest, name: string) =>
  m.dependencies?.[name] !== undefined || m.peerDependencies?.[name] !== undefined;

describe('package.json dependencies of each workspace package', () => {
  it.each(PACKAGES)('%s declares every package its src/ imports', (dir) => {
    const manifest = manifestOf(dir);
    const imported = importedPackages([`packages/${dir}/src`], manifest.name);
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((name) => !declared(manifest, name))).toEqual([]);
  });

  it('the library declares what the examples import, and every peer of the library but kysely is optional', () => {
    const library = manifestOf('payonce');
    const imported = importedPackages(['examples'], 'payonce', OWN_MANIFEST_EXAMPLES);
    expect(imported).toContain('@hono/node-server');
    expect(imported.filter((name) => !declared(library, name))).toEqual([]);
    const required = Object.keys(library.peerDependencies ?? {}).filter(
      (name) => library.peerDependenciesMeta?.[name]?.optional !== true,
    );
    // kysely is the library's SQL layer and the type of the transactions it shares with the application's own
    // Kysely: a required peer (npm 7+ installs it with payonce), so an application has ONE copy of it.
    expect(required).toEqual(['kysely']);
    expect(library.dependencies?.kysely).toBeUndefined();
  });

  it.each(OWN_MANIFEST_EXAMPLES)('%s declares what it imports in its own package.json', (dir) => {
    const manifest = read(`${dir}/package.json`) as Manifest;
    const imported = importedPackages([dir], manifest.name);
    expect(imported).toContain('payonce');
    expect(imported.filter((name) => !declared(manifest, name) && !(name in (manifest.devDependencies ?? {})))).toEqual(
      [],
    );
  });

  it('has package-lock.json in step: each package entry lists the same dependencies and peers', () => {
    const lock = read('package-lock.json') as { packages: Record<string, Manifest> };
    for (const dir of PACKAGES) {
      const entry = lock.packages[`packages/${dir}`];
      const manifest = manifestOf(dir);
      expect(entry?.dependencies, dir).toEqual(manifest.dependencies);
      expect(entry?.peerDependencies, dir).toEqual(manifest.peerDependencies);
    }
  });
});

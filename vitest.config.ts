import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const PACKAGES = ['payonce', 'sandbox', 'storm', 'service', 'cli'];

interface Manifest {
  readonly name: string;
  readonly exports: Record<string, string | { readonly import: string }>;
}

/**
 * In tests every workspace package resolves to its TypeScript source (as tsconfig.json's `paths` do for the type
 * check), so a test and the tooling it drives share one copy of each module: `payonce/x` → `packages/payonce/src/…`.
 */
function sourceAliases(): { find: RegExp; replacement: string }[] {
  return PACKAGES.flatMap((dir) => {
    const root = fileURLToPath(new URL(`./packages/${dir}/`, import.meta.url));
    const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as Manifest;
    return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
      if (target === null || typeof target === 'string') return []; // null: a path kept out of the package
      const spec = manifest.name + subpath.slice(1);
      const escaped = spec.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      if (subpath.endsWith('/*')) {
        const prefix = escaped.slice(0, -2); // drop the escaped `*`
        return [{ find: new RegExp(`^${prefix}(.+)\\.js$`), replacement: `${root}src/$1.ts` }];
      }
      const file = target.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
      return [{ find: new RegExp(`^${escaped}$`), replacement: `${root}${file}` }];
    });
  });
}

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Three test files at a time: most suites wait on servers, leases and child processes rather than compute, so
    // on a 2-core machine two workers took 475 s where one took 695 s (2026-12-01; vitest's default here is one
    // worker). With this round's suites (example apps under tsx, three-dialect storms) two workers took 880–940 s
    // (2026-12-07), past the 15-minute budget of `npm test`.
    maxWorkers: 3,
  },
});

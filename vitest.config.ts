import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { HeavyFirstSequencer } from './test/support/heavy-first-sequencer.js';

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

/**
 * Files that must run in a process of their own: they register OpenTelemetry's global providers (which a shared
 * process would keep for every later file), mock a module, or check how the library behaves without a peer.
 */
const ISOLATED = ['test/otel/**/*.test.ts', 'test/**/*otel*.test.ts', 'test/cli/migrate-without-cli.test.ts'];

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Three test files at a time: most suites wait on servers, leases and child processes rather than compute, so
    // on a 2-core machine two workers took 475 s where one took 695 s (2026-12-01; vitest's default here is one
    // worker). With this round's suites (example apps under tsx, three-dialect storms) two workers took 880–940 s
    // (2026-12-07), past the 15-minute budget of `npm test`.
    maxWorkers: 3,
    sequence: { sequencer: HeavyFirstSequencer },
    projects: [
      {
        extends: true,
        // A worker process runs file after file and keeps its module cache: importing the library, its drivers
        // and vitest once per worker instead of once per file halved the unit tier (80 s → 34 s, 2026-12-07).
        // Every file closes what it opens and restores what it changes (process.env, spies), so sharing holds.
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});

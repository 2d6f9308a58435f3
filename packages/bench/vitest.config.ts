import { defineConfig } from 'vitest/config';

/**
 * The bench's own tests (its harness, on real side processes with tiny sizes): not part of the repository's default
 * `npm test`, run with `npm run test -w @payonce/bench`. The bench imports the library by its npm specifiers, which
 * resolve to the built packages (run `npm run build` at the repository root first).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});

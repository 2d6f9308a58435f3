import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two test files at a time: most suites wait on servers, leases and child processes rather than compute, so
    // on a 2-core machine two workers took 475 s where one took 695 s (2026-12-01; vitest's default here is one
    // worker). On a quiet machine the whole run now takes about 260 s (2026-12-04).
    maxWorkers: 2,
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two test files at a time: most suites wait on servers, leases and child processes rather than compute, so
    // on a 2-core machine the whole run takes about 8 minutes instead of 12 (vitest's default here is one worker).
    maxWorkers: 2,
  },
});

/**
 * The servers the bench uses, as the test suite names them (the same environment variables). In a module of its own
 * so a side process that only needs a URL does not load every driver and store, as `namespaces.ts` does.
 */
export const BENCH_URLS = Object.freeze({
  postgres: process.env.PAYONCE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  mysql: process.env.PAYONCE_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test',
  redis: process.env.PAYONCE_REDIS_URL ?? 'redis://127.0.0.1:6379',
});

import type { BackendFactory, BackendName } from '../backend.js';

/**
 * Every backend's factory, loaded lazily so selecting `PAYONCE_BACKENDS=memory` needs no server driver.
 * A typed record: a new `BackendName` is a compile error until it has a factory here.
 */
export const backendFactories: Record<BackendName, () => Promise<BackendFactory>> = {
  memory: async () => (await import('./memory.js')).memoryBackend,
  sqlite: async () => (await import('./sqlite.js')).sqliteBackend,
  postgres: async () => (await import('./postgres.js')).postgresBackend,
  mysql: async () => (await import('./mysql.js')).mysqlBackend,
  redis: async () => (await import('./redis.js')).redisBackend,
};

const ALL = Object.keys(backendFactories) as BackendName[];
/** Selectable in `PAYONCE_BACKENDS` but only run by the suites that start it (the Store contract suite). */
const OPT_IN = ['redis-cluster', 'postgres-batched', 'mysql-batched'];

/**
 * True when the Store contract suite should also run on a 3-master Redis Cluster it starts itself: by default,
 * or when `PAYONCE_BACKENDS` names `redis-cluster`.
 */
export function redisClusterSelected(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env.PAYONCE_BACKENDS?.trim();
  return !raw || raw.split(',').some((name) => name.trim() === 'redis-cluster');
}

/** The backends selected by `PAYONCE_BACKENDS` (comma-separated), or all of them. Unknown names throw. */
export function backendsFromEnv(env: NodeJS.ProcessEnv = process.env): BackendName[] {
  const raw = env.PAYONCE_BACKENDS?.trim();
  if (!raw) return ALL;
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => !OPT_IN.includes(name));
  for (const name of names) {
    if (!ALL.includes(name as BackendName)) throw new Error(`PAYONCE_BACKENDS: unknown backend ${name}`);
  }
  return names as BackendName[];
}

/** The SQL backends whose store also runs batched (`batching: true`) in the Store contract suite. */
export type BatchedBackendName = 'postgres' | 'mysql';

/**
 * The backends the Store contract suite also runs with batched claims and completions: each of PostgreSQL and MySQL
 * when it is selected itself (by default, all), or when `PAYONCE_BACKENDS` names `postgres-batched` /
 * `mysql-batched`.
 */
export function batchedBackendsSelected(env: NodeJS.ProcessEnv = process.env): BatchedBackendName[] {
  const raw = env.PAYONCE_BACKENDS?.trim();
  const names = raw ? raw.split(',').map((name) => name.trim()) : ['postgres', 'mysql'];
  return (['postgres', 'mysql'] as const).filter((base) => names.includes(base) || names.includes(`${base}-batched`));
}

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

/** The backends selected by `PAYONCE_BACKENDS` (comma-separated), or all of them. Unknown names throw. */
export function backendsFromEnv(env: NodeJS.ProcessEnv = process.env): BackendName[] {
  const raw = env.PAYONCE_BACKENDS?.trim();
  if (!raw) return ALL;
  const names = raw.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!ALL.includes(name as BackendName)) throw new Error(`PAYONCE_BACKENDS: unknown backend ${name}`);
  }
  return names as BackendName[];
}

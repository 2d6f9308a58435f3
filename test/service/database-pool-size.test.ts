import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServiceStore } from '../../packages/service/src/open-service-store.js';
import { resolveServiceConfig } from '../../packages/service/src/service-config.js';
import { backendsFromEnv } from '../contract/backends/index.js';
import { createPostgresNamespace, type PostgresNamespace } from '../contract/backends/postgres.js';

describe('databasePoolSize', () => {
  it('defaults to the drivers’ 10 and refuses sizes outside 1–1000', () => {
    expect(resolveServiceConfig({}).databasePoolSize).toBe(10);
    expect(resolveServiceConfig({ databasePoolSize: 64 }).databasePoolSize).toBe(64);
    for (const bad of [0, 1_001, 2.5]) {
      expect(() => resolveServiceConfig({ databasePoolSize: bad })).toThrow(/databasePoolSize/);
    }
  });
});

describe.runIf(backendsFromEnv().includes('postgres'))('databasePoolSize on PostgreSQL', () => {
  let ns: PostgresNamespace;
  beforeAll(async () => {
    ns = await createPostgresNamespace();
  });
  afterAll(async () => {
    await ns?.drop();
  });

  /** The distinct server backends that answered `n` statements sent at once through a store opened with `size`. */
  async function backendsUsed(size: number | undefined, n: number): Promise<number> {
    const store = await openServiceStore(ns.url, size);
    try {
      const pids = await Promise.all(
        Array.from({ length: n }, async () => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(store.db);
          return rows[0]!.pid;
        }),
      );
      return new Set(pids).size;
    } finally {
      await store.close();
    }
  }

  it('opens at most databasePoolSize connections, and more than 10 when asked', async () => {
    expect(await backendsUsed(2, 6)).toBe(2);
    expect(await backendsUsed(undefined, 12)).toBe(10);
    expect(await backendsUsed(12, 12)).toBe(12);
  });
});

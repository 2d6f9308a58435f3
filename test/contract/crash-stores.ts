import { randomUUID } from 'node:crypto';
import type { Store } from '../../packages/payonce/src/core/store.js';
import { MysqlStore } from '../../packages/payonce/src/stores/mysql/mysql-store.js';
import { PostgresStore } from '../../packages/payonce/src/stores/postgres/postgres-store.js';
import { RedisStore } from '../../packages/payonce/src/stores/redis/redis-store.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createMysqlNamespace } from './backends/mysql.js';
import { createPostgresNamespace } from './backends/postgres.js';
import { deleteKeysWithPrefix, redisTestClient, redisTestUrl } from './backends/redis.js';
import { createSqliteNamespace } from './backends/sqlite.js';

/** Backends that several processes can share, with a target string a child process can open. */
export type SharedBackend = 'sqlite' | 'postgres' | 'mysql' | 'redis';
export const SHARED_BACKENDS: readonly SharedBackend[] = ['sqlite', 'postgres', 'mysql', 'redis'];

/** A store with `close()`, as every shared backend has. */
export type ClosableStore = Store & { close(): Promise<void> };

/** Opens a store on `target` (file path, connection URL or Redis key prefix) in this process. */
export async function openCrashStore(backend: string, target: string): Promise<ClosableStore> {
  switch (backend) {
    case 'sqlite':
      return SqliteStore.open(target);
    case 'postgres':
      return PostgresStore.connect(target);
    case 'mysql':
      return MysqlStore.connect(target);
    case 'redis':
      return RedisStore.connect(redisTestUrl(), { prefix: target });
    default:
      throw new Error(`crash test: unknown backend ${backend}`);
  }
}

/** A migrated, isolated namespace and the target string that opens it; `drop()` removes it. */
export async function createSharedNamespace(
  backend: SharedBackend,
): Promise<{ target: string; drop(): Promise<void> }> {
  const namespace = await (async () => {
    switch (backend) {
      case 'sqlite': {
        const ns = await createSqliteNamespace();
        return { target: ns.path, drop: ns.drop };
      }
      case 'postgres': {
        const ns = await createPostgresNamespace();
        return { target: ns.url, drop: ns.drop };
      }
      case 'mysql': {
        const ns = await createMysqlNamespace();
        return { target: ns.url, drop: ns.drop };
      }
      case 'redis': {
        const prefix = `payonce-crash-${randomUUID()}:`;
        const drop = async () => {
          const client = redisTestClient();
          await deleteKeysWithPrefix(client, prefix).finally(() => client.quit());
        };
        return { target: prefix, drop };
      }
    }
  })();
  if (backend !== 'redis') {
    const store = (await openCrashStore(backend, namespace.target)) as ClosableStore & { migrate(): Promise<unknown> };
    await store.migrate();
    await store.close();
  }
  return namespace;
}

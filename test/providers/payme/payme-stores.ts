import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { backendsFromEnv } from '../../contract/backends/index.js';
import { createSharedNamespace, openCrashStore } from '../../contract/crash-stores.js';

/** The SQL backends the Payme engine runs on (those of `PAYONCE_BACKENDS`, default all three). */
export const PAYME_BACKENDS = (['sqlite', 'postgres', 'mysql'] as const).filter((name) =>
  (backendsFromEnv() as string[]).includes(name),
);
export type PaymeBackend = (typeof PAYME_BACKENDS)[number];

/** A migrated, fresh namespace on `backend` (SQLite file, PostgreSQL schema, MariaDB database) and stores on it. */
export async function paymeNamespace(backend: PaymeBackend) {
  const namespace = await createSharedNamespace(backend);
  const opened: SqlStore<unknown>[] = [];
  return {
    target: namespace.target,
    async open(): Promise<SqlStore<unknown>> {
      const store = (await openCrashStore(backend, namespace.target)) as unknown as SqlStore<unknown>;
      opened.push(store);
      return store;
    },
    async drop() {
      await Promise.all(opened.map((store) => store.close()));
      await namespace.drop();
    },
  };
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import type { TestBackend } from '../backend.js';

/** A fresh temporary directory holding one SQLite file; `drop()` deletes it. */
export interface SqliteNamespace {
  readonly path: string;
  drop(): Promise<void>;
}

/** Creates an empty SQLite file path in a new temporary directory (not migrated). */
export async function createSqliteNamespace(): Promise<SqliteNamespace> {
  const dir = await mkdtemp(join(tmpdir(), 'payonce-sqlite-'));
  return { path: join(dir, 'payonce.db'), drop: () => rm(dir, { recursive: true, force: true }) };
}

/** A migrated SQLite file; every `open()` is a new better-sqlite3 connection to it. */
export async function sqliteBackend(): Promise<TestBackend> {
  const namespace = await createSqliteNamespace();
  const setup = await SqliteStore.open(namespace.path);
  await setup.migrate();
  await setup.close();
  const opened: SqliteStore[] = [];
  return {
    name: 'sqlite',
    async open() {
      const store = await SqliteStore.open(namespace.path);
      opened.push(store);
      return store;
    },
    async cleanup() {
      await Promise.all(opened.map((store) => store.close()));
      await namespace.drop();
    },
  };
}

import { pathToFileURL } from 'node:url';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import type { Store } from '../../packages/payonce/src/core/store.js';
import type { IdempotencyKeyPolicy } from '../../packages/payonce/src/http/idempotency-key-policy.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import type { PaymentsApiDeps } from './payments-api.js';

/** What every example app takes: the API's dependencies, the guard holding the keys, and policy overrides. */
export interface ExampleAppOptions extends PaymentsApiDeps {
  readonly guard: IdempotencyGuard;
  readonly policy?: Omit<IdempotencyKeyPolicy, 'storedHeaders'>;
}

/** Response headers the examples store and replay (`x-request-id` is deliberately not among them). */
export const STORED_HEADERS = ['content-type', 'location'] as const;

/** True when `moduleUrl` is the file node was started with (`tsx examples/express/server.ts`). */
export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && moduleUrl === pathToFileURL(entry).href;
}

/**
 * The store of a started example: a migrated SQLite file when `PAYONCE_SQLITE_PATH` is set, else memory.
 * The HTTP layer gets a store of its own (see `IdempotencyCoreOptions.guard`).
 */
export async function exampleGuard(): Promise<{ guard: IdempotencyGuard; close: () => Promise<void> }> {
  const path = process.env.PAYONCE_SQLITE_PATH;
  if (!path) return { guard: new IdempotencyGuard(new MemoryStore()), close: async () => {} };
  const { SqliteStore } = await import('../../packages/payonce/src/stores/sqlite/sqlite-store.js');
  const store = await SqliteStore.open(path);
  await store.migrate();
  return { guard: new IdempotencyGuard<Store>(store), close: () => store.close() };
}

/** The port a started example listens on: `PORT` (0 picks a free one), default 3000. */
export const examplePort = (): number => Number(process.env.PORT ?? 3000);

/** Purges expired keys every hour while the example runs (the timer does not keep the process alive). */
export function schedulePurge(purge: () => Promise<number>): void {
  setInterval(() => void purge().catch(() => {}), 3_600_000).unref();
}

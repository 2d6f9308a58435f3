import { sql } from 'kysely';
import { ManualClock } from '../../core/clock.js';
import { IdempotencyGuard } from '../../core/idempotency-guard.js';
import type { ReceiptsDatabase } from '../../stores/sql/receipts-table.js';
import { SqliteStore } from '../../stores/sqlite/sqlite-store.js';

/** The demo's business table: one row per fulfilment it performed (deliberately without a unique index). */
export interface DemoTables extends ReceiptsDatabase {
  demo_fulfilments: { event_id: string; worker: string; amount_minor: number };
}

/** One simulated worker process: its own SQLite connection, store and guard. */
export interface DemoWorker {
  readonly name: string;
  readonly store: SqliteStore<DemoTables>;
  readonly guard: IdempotencyGuard<SqliteStore<DemoTables>>;
}

/** The shared SQLite file, the workers on it and the clock they all read (moved by the takeover scenario). */
export interface DemoWorld {
  readonly path: string;
  readonly clock: ManualClock;
  readonly workers: readonly DemoWorker[];
  /** Lease of every guard, in ms. */
  readonly staleAfterMs: number;
  /** Records one fulfilment of `eventId` by `worker` (the business effect that must happen once). */
  fulfil(worker: DemoWorker, eventId: string, amountMinor: number): Promise<void>;
  /** How many fulfilment rows exist for each of `eventIds`. */
  fulfilments(eventIds: readonly string[]): Promise<number[]>;
  close(): Promise<void>;
}

/**
 * Opens `workerCount` connections to the SQLite file at `path`, migrates the receipts table and creates the
 * demo's fulfilment table. Every worker's guard reads the same manual clock, which starts at the real time.
 */
export async function openDemoWorld(path: string, workerCount: number, staleAfterMs: number): Promise<DemoWorld> {
  const clock = new ManualClock(Date.now());
  const workers: DemoWorker[] = [];
  for (let i = 1; i <= workerCount; i++) {
    const store = await SqliteStore.open<DemoTables>(path);
    if (i === 1) {
      await store.migrate();
      await store.db.schema
        .createTable('demo_fulfilments')
        .ifNotExists()
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('worker', 'text', (c) => c.notNull())
        .addColumn('amount_minor', 'integer', (c) => c.notNull())
        .execute();
    }
    workers.push({ name: `worker-${i}`, store, guard: new IdempotencyGuard(store, { clock, staleAfterMs }) });
  }
  const db = workers[0]!.store.db;
  return {
    path,
    clock,
    workers,
    staleAfterMs,
    async fulfil(worker, eventId, amountMinor) {
      await worker.store.db
        .insertInto('demo_fulfilments')
        .values({ event_id: eventId, worker: worker.name, amount_minor: amountMinor })
        .execute();
    },
    async fulfilments(eventIds) {
      if (eventIds.length === 0) return [];
      const rows = await db
        .selectFrom('demo_fulfilments')
        .select(['event_id', sql<number>`count(*)`.as('n')])
        .where('event_id', 'in', [...eventIds])
        .groupBy('event_id')
        .execute();
      const byId = new Map(rows.map((row) => [row.event_id, Number(row.n)]));
      return eventIds.map((id) => byId.get(id) ?? 0);
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.store.close()));
    },
  };
}

import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';

/** A unique lower-case token for stream, subject, queue and exchange names of one test. */
export function uniqueName(prefix: string): string {
  return `${prefix}${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

/** The test consumer's effect table (one row per applied message; a double effect shows as two rows). */
export const EFFECTS = 'relay_test_effects';

/** Creates the test effect table on `store`. */
export async function createEffectTable(store: SqlStore<unknown>): Promise<void> {
  await sql
    .raw(
      `create table if not exists ${EFFECTS} (message_id varchar(64) not null, aggregate_key varchar(200), position integer not null, applied_no integer not null)`,
    )
    .execute(store.db);
}

/** Enqueues `perAggregate` jobs of `topic` for each of `aggregates` aggregates, interleaved, payload `{ aggregate, position }`. */
export async function enqueueMany(
  store: SqlStore<unknown>,
  topic: string,
  aggregates: number,
  perAggregate: number,
): Promise<void> {
  const outbox = new Outbox(store);
  await store.db.transaction().execute(async (trx) => {
    for (let position = 1; position <= perAggregate; position++) {
      for (let a = 0; a < aggregates; a++) {
        const aggregate = `agg-${a}`;
        await outbox.enqueueOnce(
          trx,
          topic,
          `${aggregate}:${position}`,
          { aggregate, position },
          { aggregateKey: aggregate },
        );
      }
    }
  });
}

interface EffectRow {
  message_id: string;
  aggregate_key: string;
  position: number | string;
  applied_no: number | string;
}

/** Writes one effect row inside the inbox transaction (`applied_no`: the count of rows before it + 1). */
export async function writeEffect(trx: Kysely<unknown>, message: { id: string; payload: unknown }): Promise<void> {
  const payload = message.payload as { aggregate: string; position: number };
  const db = trx as unknown as Kysely<Record<string, EffectRow>>;
  const count = await db
    .selectFrom(EFFECTS)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  await db
    .insertInto(EFFECTS)
    .values({
      message_id: message.id,
      aggregate_key: payload.aggregate,
      position: payload.position,
      applied_no: Number(count.n) + 1,
    })
    .execute();
}

/** Every effect row, in the order they were applied. */
export async function effectRows(
  store: SqlStore<unknown>,
): Promise<{ id: string; aggregate: string; position: number }[]> {
  const db = store.db as unknown as Kysely<Record<string, EffectRow>>;
  const rows = await db.selectFrom(EFFECTS).selectAll().orderBy('applied_no').execute();
  return rows.map((r) => ({ id: r.message_id, aggregate: r.aggregate_key, position: Number(r.position) }));
}

/** True when every aggregate's positions were applied 1, 2, 3, … in that order. */
export function inAggregateOrder(rows: readonly { aggregate: string; position: number }[]): boolean {
  const last = new Map<string, number>();
  for (const row of rows) {
    if (row.position !== (last.get(row.aggregate) ?? 0) + 1) return false;
    last.set(row.aggregate, row.position);
  }
  return true;
}

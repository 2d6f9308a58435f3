import { type Kysely, sql, type Transaction } from 'kysely';
import { Outbox } from 'payonce/internal/outbox/outbox.js';
import { OUTBOX_TABLE, type OutboxDatabase } from 'payonce/internal/outbox/outbox-tables.js';
import type { SqlTarget } from 'payonce/internal/outbox/sql-transaction.js';
import type { ConsumedMessage } from 'payonce/internal/relay/inbox.js';

/**
 * The relay storm's consumer-side business table: one row per effect applied (no unique constraint on purpose,
 * so a double effect shows as two rows), with whether it came in its aggregate's order.
 */
export const STORM_EFFECTS_TABLE = 'payonce_relay_storm_effects';

interface StormEffectsTable {
  run_id: string;
  message_id: string;
  aggregate_key: string;
  position: number;
  in_order: number;
}

type StormDatabase = OutboxDatabase & { payonce_relay_storm_effects: StormEffectsTable };

/** Creates the storm's effect table if missing (plain DDL valid on SQLite, PostgreSQL and MySQL). */
export async function createStormEffectsTable<DB>(target: SqlTarget<DB>): Promise<void> {
  await sql
    .raw(
      `create table if not exists ${STORM_EFFECTS_TABLE} (run_id varchar(64) not null, message_id varchar(64) not null, aggregate_key varchar(200) not null, position integer not null, in_order integer not null)`,
    )
    .execute(target.db);
}

/** The payload of a storm message. */
export interface StormPayload {
  readonly run: string;
  readonly aggregate: string;
  readonly position: number;
}

/**
 * The storm consumer's effect, run inside the inbox transaction: one row, `in_order` = 1 when its position
 * follows the highest position already applied for its aggregate.
 */
export async function applyStormEffect<DB>(message: ConsumedMessage, trx: Transaction<DB>): Promise<void> {
  const payload = message.payload as StormPayload;
  const db = trx as unknown as Kysely<StormDatabase>;
  const row = await db
    .selectFrom(STORM_EFFECTS_TABLE)
    .select((eb) => eb.fn.max('position').as('last'))
    .where('run_id', '=', payload.run)
    .where('aggregate_key', '=', payload.aggregate)
    .executeTakeFirst();
  const last = row?.last === null || row?.last === undefined ? 0 : Number(row.last);
  await db
    .insertInto(STORM_EFFECTS_TABLE)
    .values({
      run_id: payload.run,
      message_id: message.id,
      aggregate_key: payload.aggregate,
      position: payload.position,
      in_order: payload.position === last + 1 ? 1 : 0,
    })
    .execute();
}

/**
 * Enqueues `count` storm messages of `topic` for run `run`, spread round-robin over `aggregates` aggregates
 * (positions 1, 2, … per aggregate), 200 per transaction.
 */
export async function enqueueStormMessages<DB>(
  target: SqlTarget<DB>,
  run: string,
  topic: string,
  count: number,
  aggregates: number,
): Promise<void> {
  const outbox = new Outbox(target);
  for (let start = 0; start < count; start += 200) {
    await target.db.transaction().execute(async (trx) => {
      for (let i = start; i < Math.min(count, start + 200); i++) {
        const aggregate = `${run}:agg-${i % aggregates}`;
        const payload: StormPayload = { run, aggregate, position: Math.floor(i / aggregates) + 1 };
        await outbox.enqueueOnce(trx, topic, `${run}:${i}`, payload, { aggregateKey: aggregate });
      }
    });
  }
}

/** What the consumer's database says about one run. */
export interface StormVerdict {
  readonly distinct: number;
  readonly rows: number;
  readonly outOfOrder: number;
  readonly unsent: number;
}

/** Counts a run's effects (distinct messages, rows, out-of-order rows) and its outbox jobs not yet `done`. */
export async function verdictOf<DB>(target: SqlTarget<DB>, run: string, topic: string): Promise<StormVerdict> {
  const db = target.db as unknown as Kysely<StormDatabase>;
  const effects = await db
    .selectFrom(STORM_EFFECTS_TABLE)
    .select((eb) => [
      eb.fn.countAll().as('rows'),
      eb.fn.count('message_id').distinct().as('distinct'),
      eb.fn.sum(eb.case().when('in_order', '=', 0).then(1).else(0).end()).as('outOfOrder'),
    ])
    .where('run_id', '=', run)
    .executeTakeFirstOrThrow();
  const unsent = await db
    .selectFrom(OUTBOX_TABLE)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('topic', '=', topic)
    .where('status', '!=', 'done')
    .executeTakeFirstOrThrow();
  return {
    rows: Number(effects.rows),
    distinct: Number(effects.distinct),
    outOfOrder: Number(effects.outOfOrder ?? 0),
    unsent: Number(unsent.n),
  };
}

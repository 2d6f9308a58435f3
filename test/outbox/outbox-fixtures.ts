import { type Kysely, sql, type Transaction } from 'kysely';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';

/** A test-only table the job handlers write their effect into, one row per effect. */
export async function createEffectTable(store: SqlStore<unknown>): Promise<void> {
  await sql`create table test_effects (effect_key varchar(200) not null, job_id varchar(36) not null)`.execute(
    store.db,
  );
}

/** The effect itself: one row in `test_effects`, written in the effect ledger's transaction. */
export async function writeEffect(trx: Transaction<unknown>, effectKey: string, jobId: string): Promise<void> {
  await sql`insert into test_effects (effect_key, job_id) values (${effectKey}, ${jobId})`.execute(trx);
}

/** How many times each effect key was written. */
export async function effectCounts(db: Kysely<unknown>): Promise<Map<string, number>> {
  const { rows } = await sql<{ effect_key: string; n: number | string | bigint }>`
    select effect_key, count(*) as n from test_effects group by effect_key`.execute(db);
  return new Map(rows.map((row) => [row.effect_key, Number(row.n)]));
}

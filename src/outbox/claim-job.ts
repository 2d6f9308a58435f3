import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { withRetry } from '../stores/sql/retry.js';
import { type OutboxJob, toOutboxJob } from './outbox-job.js';
import { OUTBOX_TABLE, type OutboxDatabase } from './outbox-tables.js';
import { type SqlTarget, transaction } from './sql-transaction.js';

/** Input of `claimJob`. Times are epoch ms UTC. */
export interface ClaimJobRequest {
  readonly topics: readonly string[];
  readonly workerId: string;
  readonly nowMs: number;
  readonly leaseMs: number;
}

function claimable(nowMs: number, topics: readonly string[]) {
  return (eb: ExpressionBuilder<OutboxDatabase, 'payonce_outbox'>) =>
    eb.and([
      eb('topic', 'in', [...topics]),
      eb.or([
        eb.and([eb('status', '=', 'queued'), eb('available_at', '<=', nowMs)]),
        eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<=', nowMs)]),
      ]),
    ]);
}

/**
 * Atomically leases ONE claimable job (a `queued` job whose `available_at` has come, or a `running` job whose
 * lease expired — its worker died) to `workerId` until `nowMs + leaseMs`, adding 1 to `attempts`; `null` when none
 * is claimable. PostgreSQL and MySQL/MariaDB: `SELECT … FOR UPDATE SKIP LOCKED` then UPDATE inside one
 * transaction, so concurrent workers take different jobs without waiting. SQLite: ONE statement
 * `UPDATE … WHERE id = (SELECT … LIMIT 1) RETURNING *` under the database write lock.
 * @see docs/design.md §7 "Worker lease"; issue 5 "claimed atomically".
 */
export async function claimJob<DB>(target: SqlTarget<DB>, request: ClaimJobRequest): Promise<OutboxJob | null> {
  const { topics, workerId, nowMs, leaseMs } = request;
  if (topics.length === 0) return null;
  const lease = {
    status: 'running',
    attempts: sql<number>`attempts + 1`,
    lease_owner: workerId,
    lease_expires_at: nowMs + leaseMs,
  };
  if (target.dialect.name === 'sqlite') {
    const db = target.db as unknown as Kysely<OutboxDatabase>;
    const row = await withRetry(
      () =>
        db
          .updateTable(OUTBOX_TABLE)
          .set(lease)
          .where('id', '=', (eb) =>
            eb.selectFrom(OUTBOX_TABLE).select('id').where(claimable(nowMs, topics)).orderBy('available_at').limit(1),
          )
          .returningAll()
          .executeTakeFirst(),
      (error) => target.dialect.isTransientError(error),
      true,
    );
    return row ? toOutboxJob(row) : null;
  }
  return transaction(target, async (trx) => {
    const db = trx as unknown as Kysely<OutboxDatabase>;
    const next = await db
      .selectFrom(OUTBOX_TABLE)
      .select('id')
      .where(claimable(nowMs, topics))
      .orderBy('available_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!next) return null;
    await db.updateTable(OUTBOX_TABLE).set(lease).where('id', '=', next.id).execute();
    const row = await db.selectFrom(OUTBOX_TABLE).selectAll().where('id', '=', next.id).executeTakeFirstOrThrow();
    return toOutboxJob(row);
  });
}

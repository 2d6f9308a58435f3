import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { withRetry } from '../stores/sql/retry.js';
import { tablesIn, tablesOf } from '../stores/sql/table-namespace.js';
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

/** How many claimable ids MySQL/MariaDB reads (without locks) before it locks the first free one. */
const CANDIDATES = 16;

/**
 * MySQL/MariaDB: reads the oldest claimable ids WITHOUT locks, then locks the first of them that is still
 * claimable and not locked by another worker, one primary-key lookup at a time (`FOR UPDATE SKIP LOCKED`).
 * One locking `SELECT … ORDER BY available_at LIMIT 1 FOR UPDATE SKIP LOCKED` is not enough there: when InnoDB
 * reads the rows through another index (the topic's unique key) and sorts them (a filesort), it locks EVERY
 * matching row it read, so a second worker skips them all and sees an empty queue while the first claim is open
 * (MariaDB 10.11; issue 11 item 5). `undefined` when none of the candidates can be locked now.
 */
async function lockFirstCandidate(
  db: Kysely<OutboxDatabase>,
  nowMs: number,
  topics: readonly string[],
): Promise<{ id: string } | undefined> {
  const candidates = await db
    .selectFrom(OUTBOX_TABLE)
    .select('id')
    .where(claimable(nowMs, topics))
    .orderBy('available_at')
    .limit(CANDIDATES)
    .execute();
  for (const { id } of candidates) {
    const locked = await db
      .selectFrom(OUTBOX_TABLE)
      .select('id')
      .where('id', '=', id)
      .where(claimable(nowMs, topics))
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (locked) return locked;
  }
  return undefined;
}

/**
 * Atomically leases ONE claimable job (a `queued` job whose `available_at` has come, or a `running` job whose
 * lease expired — its worker died) to `workerId` until `nowMs + leaseMs`, adding 1 to `attempts`; `null` when none
 * is claimable. PostgreSQL: `SELECT … FOR UPDATE SKIP LOCKED` then UPDATE inside one transaction, so concurrent
 * workers take different jobs without waiting; MySQL/MariaDB lock one candidate row at a time instead (see
 * `lockFirstCandidate`). SQLite: ONE statement
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
    const db = tablesOf<OutboxDatabase>(target);
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
      target.dialect.retryBudgetMs,
    );
    return row ? toOutboxJob(row) : null;
  }
  return transaction(target, async (trx) => {
    const db = tablesIn<OutboxDatabase>(target, trx);
    const next =
      target.dialect.name === 'mysql'
        ? await lockFirstCandidate(db, nowMs, topics)
        : await db
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

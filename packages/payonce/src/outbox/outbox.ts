import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import { type Clock, systemClock } from '../core/clock.js';
import { InvalidOption } from '../core/errors.js';
import { isStoredId } from '../core/stored-id.js';
import { PAYONCE_ATTRIBUTES as A } from '../otel/attributes.js';
import { inSpan } from '../otel/span-scope.js';
import type { TraceCarrier } from '../otel/trace-context.js';
import { executeStatement, StatementCache, statementsOn } from '../stores/sql/compiled-statement.js';
import type { ReceiptsDatabase } from '../stores/sql/receipts-table.js';
import { tablesIn, tablesOf } from '../stores/sql/table-namespace.js';
import { insertedUnlessDuplicate } from './insert-unless-duplicate.js';
import { type OutboxJob, toOutboxJob } from './outbox-job.js';
import { OUTBOX_ORDER_TABLE, OUTBOX_TABLE, type OutboxDatabase } from './outbox-tables.js';
import { recordJobTrace } from './outbox-trace.js';
import type { SqlTarget } from './sql-transaction.js';

/** Longest topic and dedupe key, in characters (the columns hold 100 and 200). */
const MAX_TOPIC_CHARS = 100;
const MAX_DEDUPE_CHARS = 200;
/**
 * Conditional UPDATEs one `requeue` tries: another try follows only when the job, found finished, was claimed and
 * finished again (or re-driven by someone else) between the read and the UPDATE.
 */
const REQUEUE_TRIES = 3;
/** The statuses a job can be re-driven from. */
type FinishedStatus = 'done' | 'dead';
const FINISHED: readonly FinishedStatus[] = ['done', 'dead'];

/**
 * The explicit answer of `enqueueOnce`: this call created the job, or a job with this topic and dedupe key already
 * existed (queued, running, done or dead) and nothing was added. Never a silent drop.
 */
export type EnqueueResult =
  | { readonly kind: 'enqueued'; readonly jobId: string }
  | { readonly kind: 'duplicate'; readonly jobId: string; readonly status: OutboxJob['status'] };

/** Options of `enqueueOnce`. */
export interface EnqueueOptions {
  /**
   * The aggregate the job belongs to (e.g. `order:<id>`), at most 200 characters. Jobs with one aggregate key
   * get increasing sequence numbers (`payonce_outbox_order`, migration `0008-outbox-order`) and `OutboxRelay`
   * publishes them in that order, one relay at a time. Enqueue the jobs of one aggregate from transactions that
   * are serialised by your own data (e.g. the order row you update), so insert order is commit order.
   * Without it the job has no ordering constraint.
   */
  readonly aggregateKey?: string;
}

const outboxStatement = statementsOn<OutboxDatabase>();

/** The new job, skipped by the unique (topic, dedupe key) where the dialect has `ON CONFLICT DO NOTHING`. */
export const ENQUEUE = outboxStatement(['id', 'topic', 'dedupeKey', 'payload', 'nowMs'], (db, p, dialect) => {
  const query = db.insertInto(OUTBOX_TABLE).values({
    id: p.id,
    topic: p.topic,
    dedupe_key: p.dedupeKey,
    payload: p.payload,
    status: 'queued',
    attempts: 0,
    available_at: p.nowMs,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    created_at: p.nowMs,
    finished_at: null,
  });
  return dialect.claimInsert === 'on-conflict-do-nothing'
    ? query.onConflict((conflict) => conflict.doNothing())
    : query;
});

const ENQUEUE_ORDER = outboxStatement(['jobId', 'aggregateKey'], (db, p) =>
  db.insertInto(OUTBOX_ORDER_TABLE).values({ job_id: p.jobId, aggregate_key: p.aggregateKey }),
);

/** The job a duplicate enqueue met, with the dialect's locking read where it has one. */
const EXISTING_JOB = outboxStatement(['topic', 'dedupeKey'], (db, p, dialect) => {
  const lock = dialect.lockingReadClause;
  return db
    .selectFrom(OUTBOX_TABLE)
    .select(['id', 'status'])
    .where('topic', '=', p.topic)
    .where('dedupe_key', '=', p.dedupeKey)
    .$if(lock !== null, (query) => query.modifyEnd(sql.raw(lock!)));
});

function checkText(name: string, value: string, max: number): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new InvalidOption(name, `must be a non-empty string of at most ${max} characters`);
  }
}

/** What `enqueueOnce` accepts as its transaction, named when something else is passed. */
const TRANSACTION_ACCEPTED =
  'must be a Kysely Transaction (db.transaction().execute(async (trx) => …)); wrap a pg client with withPgTransaction (payonce/tx/pg) or a Drizzle tx with withDrizzleTransaction (payonce/tx/drizzle)';

/** @throws {InvalidOption} `trx` is not a Kysely `Transaction`. */
function checkTransaction(trx: unknown): void {
  if ((trx as { isTransaction?: unknown } | null)?.isTransaction !== true) {
    throw new InvalidOption('trx', TRANSACTION_ACCEPTED);
  }
}

/**
 * The transactional outbox of docs/design.md §7 on a SQL store (SQLite, PostgreSQL, MySQL/MariaDB; migration
 * `0003-outbox`). Jobs are written by `enqueueOnce` inside the caller's business transaction and run by an
 * `OutboxWorker`.
 * @see docs/design.md §7; seed 002 "transactional outbox".
 * @example
 * const outbox = new Outbox(store);
 * await store.db.transaction().execute(async (trx) => {
 *   await markPaid(trx, orderId);
 *   await outbox.enqueueOnce(trx, 'order.fulfil', `order:${orderId}`, { orderId });
 * });
 */
export class Outbox<DB> {
  private readonly target: SqlTarget<DB>;
  private readonly clock: Clock;
  /** The enqueue statements, compiled once on the target's Kysely instance (the store's own cache on a store). */
  private readonly statements: StatementCache;

  /** `target` is a SQL store (`SqliteStore`, `PostgresStore`, `MysqlStore`) or any `{ db, dialect }`. */
  constructor(target: SqlTarget<DB>, options: { clock?: Clock } = {}) {
    this.target = target;
    this.clock = options.clock ?? systemClock;
    this.statements = target.statements ?? new StatementCache(tablesOf<ReceiptsDatabase>(target), target.dialect);
  }

  /**
   * Adds a job inside `trx` (the caller's open transaction on the same database) unless one with this `topic`
   * and `dedupeKey` exists — relying on UNIQUE(topic, dedupe_key), in one statement. The job commits or rolls
   * back with the caller's writes. A duplicate answers `{ kind: 'duplicate', jobId, status }` with the existing
   * job, also when that job is long done.
   * @param payload any JSON-serialisable value; stored as JSON text.
   * @param options `aggregateKey`: see {@link EnqueueOptions} (written only when the job is new).
   * @throws {InvalidOption} `trx` is not a Kysely `Transaction` (a Drizzle `tx` or a pg client goes through
   *   `withDrizzleTransaction` of `payonce/tx/drizzle` / `withPgTransaction` of `payonce/tx/pg`); empty or too long `topic` (100) / `dedupeKey` (200) / `aggregateKey` (200), or a
   *   payload JSON cannot hold.
   * With an OpenTelemetry SDK registered this runs in the span `payonce.outbox.enqueue`, whose trace context is
   * stored with a new job (`payonce_outbox_trace`): the job's run and its relayed message continue that trace.
   * @see docs/design.md §7 "Enqueue once"; docs/observability.md.
   */
  async enqueueOnce(
    trx: Transaction<DB>,
    topic: string,
    dedupeKey: string,
    payload: unknown,
    options: EnqueueOptions = {},
  ): Promise<EnqueueResult> {
    checkTransaction(trx);
    checkText('topic', topic, MAX_TOPIC_CHARS);
    checkText('dedupeKey', dedupeKey, MAX_DEDUPE_CHARS);
    const { aggregateKey } = options;
    if (aggregateKey !== undefined) checkText('aggregateKey', aggregateKey, MAX_DEDUPE_CHARS);
    const json = JSON.stringify(payload);
    if (json === undefined) throw new InvalidOption('payload', 'must be JSON-serialisable');
    const spec = {
      kind: 'producer' as const,
      attributes: { 'messaging.operation.type': 'send', 'messaging.destination.name': topic },
    };
    return await inSpan('payonce.outbox.enqueue', spec, async (span) => {
      const result = await this.insertJob(trx, topic, dedupeKey, json, aggregateKey, span.carrier());
      span.set(A.jobId, result.jobId);
      span.set(A.result, result.kind);
      return result;
    });
  }

  /** The statements of `enqueueOnce`, with the trace context of its span (`null`: none recorded). */
  private async insertJob(
    trx: Transaction<DB>,
    topic: string,
    dedupeKey: string,
    json: string,
    aggregateKey: string | undefined,
    carrier: TraceCarrier | null,
  ): Promise<EnqueueResult> {
    const db = trx as unknown as Kysely<OutboxDatabase>;
    const id = randomUUID();
    const now = this.clock.now();
    const values = { id, topic, dedupeKey, payload: json, nowMs: now };
    const inserted = await insertedUnlessDuplicate(
      async () => (await executeStatement(db, this.statements, ENQUEUE, values)).numAffectedRows,
    );
    if (inserted) {
      if (aggregateKey !== undefined) {
        await executeStatement(db, this.statements, ENQUEUE_ORDER, { jobId: id, aggregateKey });
      }
      if (carrier !== null) await recordJobTrace(tablesIn<OutboxDatabase>(this.target, trx), id, carrier);
      return Object.freeze({ kind: 'enqueued', jobId: id });
    }
    const existing = (await executeStatement(db, this.statements, EXISTING_JOB, { topic, dedupeKey })).rows[0];
    if (existing === undefined) throw new Error(`outbox job ${topic} ${dedupeKey} conflicted, but none exists`);
    return Object.freeze({ kind: 'duplicate', jobId: existing.id, status: existing.status as OutboxJob['status'] });
  }

  /** The job with this topic and dedupe key, or `null`. */
  async find(topic: string, dedupeKey: string): Promise<OutboxJob | null> {
    const row = await tablesOf<OutboxDatabase>(this.target)
      .selectFrom(OUTBOX_TABLE)
      .selectAll()
      .where('topic', '=', topic)
      .where('dedupe_key', '=', dedupeKey)
      .executeTakeFirst();
    return row ? toOutboxJob(row) : null;
  }

  /** The job with this id, or `null` (also for an id that no stored job can have: see `isStoredId`). */
  async findById(jobId: string): Promise<OutboxJob | null> {
    if (!isStoredId(jobId)) return null;
    const row = await tablesOf<OutboxDatabase>(this.target)
      .selectFrom(OUTBOX_TABLE)
      .selectAll()
      .where('id', '=', jobId)
      .executeTakeFirst();
    return row ? toOutboxJob(row) : null;
  }

  /** Every job with this dedupe key, whatever its topic (e.g. `order:<id>`: fulfilment and refund), oldest first. */
  async jobsByDedupeKey(dedupeKey: string): Promise<OutboxJob[]> {
    const rows = await tablesOf<OutboxDatabase>(this.target)
      .selectFrom(OUTBOX_TABLE)
      .selectAll()
      .where('dedupe_key', '=', dedupeKey)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toOutboxJob);
  }

  /**
   * Re-drives a finished job: a `done` or `dead` job goes back to `queued`, available now, with its run count
   * reset (so a dead letter gets `maxAttempts` fresh runs) and its last error kept. One conditional UPDATE, so a
   * job is never requeued while it is queued or running. A re-run job must not repeat its effect: handlers guard
   * effects with the effect ledger (`runEffectOnce`), which answers `already-applied`.
   * @returns `requeued` with the job as the re-drive left it (`queued`, 0 runs; a worker may have claimed it since);
   *   `not-finished` with the job when it is `queued`/`running` (or, after 3 tries each lost to a worker finishing
   *   the job again in between, as last read);
   *   `not-found` when no job has this id.
   * @see docs/design.md §7 "Effect ledger"; docs/console.md `POST /admin/api/jobs/:id/rerun`.
   */
  async requeue(
    jobId: string,
  ): Promise<
    | { readonly kind: 'requeued'; readonly job: OutboxJob }
    | { readonly kind: 'not-finished'; readonly job: OutboxJob }
    | { readonly kind: 'not-found' }
  > {
    let job = await this.findById(jobId);
    // A worker can finish the job between a refused UPDATE and the read after it: the job is then re-drivable again,
    // so the UPDATE is retried rather than answering "not finished" about a finished job (bounded: each retry
    // needs a worker to run the whole job in that gap).
    for (let tries = 0; job !== null && tries < REQUEUE_TRIES; tries++) {
      if (job.status === 'queued' || job.status === 'running') return Object.freeze({ kind: 'not-finished', job });
      const requeued = await this.requeueIfStill(job, FINISHED);
      if (requeued !== null) return Object.freeze({ kind: 'requeued', job: requeued });
      job = await this.findById(jobId);
    }
    if (job === null) return Object.freeze({ kind: 'not-found' });
    return Object.freeze({ kind: 'not-finished', job });
  }

  /**
   * The conditional UPDATE of every re-drive (`requeue`; the admin console's rerun of a dead letter): `existing` goes
   * back to `queued`, available now, 0 runs, no lease, its last error kept — only while its status is still one of
   * `statuses`. Returns the job as the UPDATE left it (not read again: a worker may claim it at once, and the caller
   * must be told what the re-drive did), or `null` when its status had changed.
   */
  async requeueIfStill(existing: OutboxJob, statuses: readonly FinishedStatus[]): Promise<OutboxJob | null> {
    const availableAtMs = this.clock.now();
    const result = await tablesOf<OutboxDatabase>(this.target)
      .updateTable(OUTBOX_TABLE)
      .set({
        status: 'queued',
        attempts: 0,
        available_at: availableAtMs,
        lease_owner: null,
        lease_expires_at: null,
        finished_at: null,
      })
      .where('id', '=', existing.id)
      .where('status', 'in', statuses)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return null;
    return Object.freeze({
      ...existing,
      status: 'queued',
      attempts: 0,
      availableAtMs,
      leaseOwner: null,
      leaseExpiresAtMs: null,
      finishedAtMs: null,
    });
  }

  /** Jobs in the dead letter (`dead`: failed `maxAttempts` times), oldest first, with their last error. */
  async deadLetters(limit = 100): Promise<OutboxJob[]> {
    const rows = await tablesOf<OutboxDatabase>(this.target)
      .selectFrom(OUTBOX_TABLE)
      .selectAll()
      .where('status', '=', 'dead')
      .orderBy('finished_at')
      .limit(limit)
      .execute();
    return rows.map(toOutboxJob);
  }
}

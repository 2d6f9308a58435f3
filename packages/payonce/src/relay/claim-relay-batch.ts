import { type Kysely, sql, type Transaction } from 'kysely';
import { OUTBOX_ORDER_TABLE, OUTBOX_TABLE, type OutboxDatabase } from '../outbox/outbox-tables.js';
import { intOf, type SqlTarget, transaction } from '../outbox/sql-transaction.js';
import { withRetry } from '../stores/sql/retry.js';
import { tablesIn, tablesOf } from '../stores/sql/table-namespace.js';
import { DEFAULT_TABLE_PREFIX, prefixedName } from '../stores/sql/table-prefix.js';
import type { RelayMessage } from './relay-message.js';

/** Input of `claimRelayBatch`. Times are epoch ms UTC. */
export interface RelayClaimRequest {
  readonly topics: readonly string[];
  readonly relayId: string;
  readonly nowMs: number;
  readonly leaseMs: number;
  /** Most jobs leased by one claim. */
  readonly batchSize: number;
}

/** A leased job: the message to publish and the claim count that fences its finishing update. */
export type ClaimedMessage = RelayMessage;

interface Candidate {
  id: string;
  topic: string;
  payload: string;
  status: string;
  attempts: number | string | bigint;
  available_at: number | string | bigint;
  lease_expires_at: number | string | bigint | null;
  created_at: number | string | bigint;
  aggregate_key: string | null;
  seq: number | string | bigint | null;
}

function claimable(row: Candidate, nowMs: number): boolean {
  if (row.status === 'queued') return intOf(row.available_at, 'available_at') <= nowMs;
  return row.lease_expires_at !== null && intOf(row.lease_expires_at, 'lease_expires_at') <= nowMs;
}

/**
 * The jobs to lease among `candidates` (unsent jobs of the relay's topics in outbox order): claimable jobs, but
 * for an aggregate only those before its first job that is NOT claimable (leased by a live relay, or waiting for
 * a retry) — so one aggregate is never published by two relays at once, nor past a job that failed.
 */
export function pickClaimable(candidates: readonly Candidate[], nowMs: number, batchSize: number): Candidate[] {
  const blocked = new Set<string>();
  const picked: Candidate[] = [];
  for (const row of candidates) {
    if (picked.length >= batchSize) break;
    const aggregate = row.aggregate_key;
    if (aggregate !== null && blocked.has(aggregate)) continue;
    if (claimable(row, nowMs)) picked.push(row);
    else if (aggregate !== null) blocked.add(aggregate);
  }
  return picked;
}

async function selectCandidates(
  db: Kysely<OutboxDatabase>,
  topics: readonly string[],
  limit: number,
  lockRows: boolean,
): Promise<Candidate[]> {
  return db
    .selectFrom(`${OUTBOX_TABLE} as o`)
    .leftJoin(`${OUTBOX_ORDER_TABLE} as s`, 's.job_id', 'o.id')
    .select([
      'o.id',
      'o.topic',
      'o.payload',
      'o.status',
      'o.attempts',
      'o.available_at',
      'o.lease_expires_at',
      'o.created_at',
      's.aggregate_key',
      's.seq',
    ])
    .where('o.topic', 'in', [...topics])
    .where('o.status', 'in', ['queued', 'running'])
    .orderBy(sql`coalesce(s.seq, 0)`)
    .orderBy('o.created_at')
    .orderBy('o.id')
    .limit(limit)
    .$if(lockRows, (query) => query.forUpdate())
    .execute() as Promise<Candidate[]>;
}

async function leaseRows(db: Kysely<OutboxDatabase>, rows: readonly Candidate[], request: RelayClaimRequest) {
  if (rows.length === 0) return;
  await db
    .updateTable(OUTBOX_TABLE)
    .set({
      status: 'running',
      attempts: sql<number>`attempts + 1`,
      lease_owner: request.relayId,
      lease_expires_at: request.nowMs + request.leaseMs,
    })
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
}

function toMessage(row: Candidate): RelayMessage {
  return Object.freeze({
    id: row.id,
    topic: row.topic,
    aggregateKey: row.aggregate_key,
    sequence: row.seq === null ? null : intOf(row.seq, 'payonce_outbox_order.seq'),
    payload: row.payload,
    createdAtMs: intOf(row.created_at, 'payonce_outbox.created_at'),
    attempt: intOf(row.attempts, 'payonce_outbox.attempts') + 1,
  });
}

/** Work done first inside the claim transaction (the relay marks the previous round's acked jobs sent there). */
export type BeforeClaim = (db: Kysely<OutboxDatabase>) => Promise<void>;

async function claimIn(
  db: Kysely<OutboxDatabase>,
  request: RelayClaimRequest,
  lockRows: boolean,
  before?: BeforeClaim,
) {
  await before?.(db);
  const candidates = await selectCandidates(db, request.topics, request.batchSize * 2, lockRows);
  const picked = pickClaimable(candidates, request.nowMs, request.batchSize);
  await leaseRows(db, picked, request);
  return picked.map(toMessage);
}

/** SQLite: one `BEGIN IMMEDIATE` transaction on the store's connection, so claims of two processes serialise. */
async function claimOnSqlite(
  db: Kysely<OutboxDatabase>,
  request: RelayClaimRequest,
  before?: BeforeClaim,
): Promise<RelayMessage[]> {
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const messages = await claimIn(connection, request, false, before);
      await sql`commit`.execute(connection);
      return messages;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
  });
}

/**
 * Leases up to `batchSize` unsent outbox jobs of `topics` to `relayId` until `nowMs + leaseMs` (status
 * `running`, attempts + 1: the worker's lease columns, so the worker's fencing applies), in outbox order
 * (`payonce_outbox_order.seq`; jobs without an aggregate first, by enqueue time). A job whose lease expired
 * (its relay died) is claimable again. For each aggregate only the jobs before its first non-claimable job are
 * taken ({@link pickClaimable}), so one aggregate is published by one relay at a time and in order. Claims are
 * serialised: PostgreSQL `pg_advisory_xact_lock` per schema, MySQL/MariaDB `SELECT … FOR UPDATE` on the
 * candidates, SQLite `BEGIN IMMEDIATE`; the transaction is retried after a transient error. `before` runs first
 * in the same transaction (one commit for "mark the last round sent" and "lease the next").
 * @returns the leased jobs, in outbox order; empty when none is claimable.
 */
export async function claimRelayBatch<DB>(
  target: SqlTarget<DB>,
  request: RelayClaimRequest,
  before?: BeforeClaim,
): Promise<RelayMessage[]> {
  if (request.topics.length === 0 && before === undefined) return [];
  const db = tablesOf<OutboxDatabase>(target);
  const transient = (error: unknown) => target.dialect.isTransientError(error);
  if (target.dialect.name === 'sqlite') return withRetry(() => claimOnSqlite(db, request, before), transient, true);
  return transaction(target, async (trx: Transaction<DB>) => {
    const tx = tablesIn<OutboxDatabase>(target, trx);
    if (target.dialect.name === 'postgres') {
      const lock = `.${prefixedName(target.tablePrefix ?? DEFAULT_TABLE_PREFIX, 'payonce_relay_claim')}`;
      await sql`select pg_advisory_xact_lock(hashtext(${target.schema ?? sql`current_schema()`} || ${lock}))`.execute(
        tx,
      );
    }
    return claimIn(tx, request, target.dialect.name === 'mysql', before);
  });
}

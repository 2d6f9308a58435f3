import type { Selectable } from 'kysely';
import type { OutboxTable } from './outbox-tables.js';
import { intOf, intOrNull } from './sql-transaction.js';

/** Status of an outbox job: `queued` (waiting or retrying), `running` (leased), `done`, `dead` (dead letter). */
export type OutboxJobStatus = 'queued' | 'running' | 'done' | 'dead';

/** One outbox job as stored. Times are epoch ms UTC. */
export interface OutboxJob {
  readonly id: string;
  readonly topic: string;
  readonly dedupeKey: string;
  /** The JSON payload given to `enqueueOnce`, parsed. */
  readonly payload: unknown;
  readonly status: OutboxJobStatus;
  /** Claims so far (1 while the first run is leased). */
  readonly attempts: number;
  /** Not claimed before this time (backoff). */
  readonly availableAtMs: number;
  readonly leaseOwner: string | null;
  readonly leaseExpiresAtMs: number | null;
  /** Error text of the last failed run (kept on the dead letter). */
  readonly lastError: string | null;
  readonly createdAtMs: number;
  readonly finishedAtMs: number | null;
}

/** The frozen `OutboxJob` of a selected row. */
export function toOutboxJob(row: Selectable<OutboxTable>): OutboxJob {
  return Object.freeze({
    id: row.id,
    topic: row.topic,
    dedupeKey: row.dedupe_key,
    payload: JSON.parse(row.payload) as unknown,
    status: row.status as OutboxJobStatus,
    attempts: intOf(row.attempts, 'payonce_outbox.attempts'),
    availableAtMs: intOf(row.available_at, 'payonce_outbox.available_at'),
    leaseOwner: row.lease_owner,
    leaseExpiresAtMs: intOrNull(row.lease_expires_at, 'payonce_outbox.lease_expires_at'),
    lastError: row.last_error,
    createdAtMs: intOf(row.created_at, 'payonce_outbox.created_at'),
    finishedAtMs: intOrNull(row.finished_at, 'payonce_outbox.finished_at'),
  });
}

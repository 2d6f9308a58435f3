import type { ColumnType } from 'kysely';

type IntColumn = ColumnType<number | string | bigint, number, number>;
type NullableIntColumn = ColumnType<number | string | bigint | null, number | null, number | null>;

/** One row of `payonce_outbox` (migration `0003-outbox`). Times are epoch ms UTC; `payload` is JSON text. */
export interface OutboxTable {
  id: string;
  topic: string;
  dedupe_key: string;
  payload: string;
  /** `queued`, `running`, `done` or `dead` (the dead letter). */
  status: string;
  attempts: IntColumn;
  available_at: IntColumn;
  lease_owner: string | null;
  lease_expires_at: NullableIntColumn;
  last_error: string | null;
  created_at: IntColumn;
  finished_at: NullableIntColumn;
}

/** One row of `payonce_effects`: an effect key, recorded in the transaction of the effect itself. */
export interface EffectsTable {
  effect_key: string;
  job_id: string | null;
  created_at: IntColumn;
}

/**
 * One row of `payonce_outbox_order` (migration `0008-outbox-order`): the aggregate of an outbox job enqueued with
 * `aggregateKey`, and its database-assigned sequence number (the relay publishes one aggregate in `seq` order).
 */
export interface OutboxOrderTable {
  seq: ColumnType<number | string | bigint, never, never>;
  job_id: string;
  aggregate_key: string;
}

/**
 * One row of `payonce_outbox_trace` (migration `0016-outbox-trace`): the W3C trace context (`traceparent`,
 * `tracestate` as JSON) of the span that enqueued a job; only jobs enqueued with an OpenTelemetry SDK have one.
 */
export interface OutboxTraceTable {
  job_id: string;
  trace_context: string;
}

/** Name of the outbox trace table (migration `0016-outbox-trace`). */
export const OUTBOX_TRACE_TABLE = 'payonce_outbox_trace';
/** Name of the outbox table (migration `0003-outbox`). */
export const OUTBOX_TABLE = 'payonce_outbox';
/** Name of the outbox order table (migration `0008-outbox-order`). */
export const OUTBOX_ORDER_TABLE = 'payonce_outbox_order';
/** Name of the effect ledger table (migration `0003-outbox`). */
export const EFFECTS_TABLE = 'payonce_effects';

/** The Kysely database type of the outbox tables; add it to your own database type to query them. */
export interface OutboxDatabase {
  payonce_outbox: OutboxTable;
  payonce_effects: EffectsTable;
  payonce_outbox_order: OutboxOrderTable;
  payonce_outbox_trace: OutboxTraceTable;
}

import type { Kysely } from 'kysely';
import type { TraceCarrier } from '../otel/trace-context.js';
import { carrierOfStored, storedCarrier } from '../otel/trace-context.js';
import { tablesOf } from '../stores/sql/table-namespace.js';
import { OUTBOX_TRACE_TABLE, type OutboxDatabase } from './outbox-tables.js';
import type { SqlTarget } from './sql-transaction.js';

/**
 * Stores the trace context of the span that enqueued job `jobId`, in the enqueue's transaction (`db` is that
 * transaction on the outbox's tables). Nothing for a `null` carrier (no SDK, span not recorded).
 */
export async function recordJobTrace(db: Kysely<OutboxDatabase>, jobId: string, carrier: TraceCarrier | null) {
  const text = storedCarrier(carrier);
  if (text === null) return;
  await db.insertInto(OUTBOX_TRACE_TABLE).values({ job_id: jobId, trace_context: text }).execute();
}

/** The stored trace contexts of `jobIds` (jobs without one are absent from the map). One query. */
export async function jobTracesOf<DB>(
  target: SqlTarget<DB>,
  jobIds: readonly string[],
): Promise<Map<string, TraceCarrier>> {
  const found = new Map<string, TraceCarrier>();
  if (jobIds.length === 0) return found;
  const rows = await tablesOf<OutboxDatabase>(target)
    .selectFrom(OUTBOX_TRACE_TABLE)
    .select(['job_id', 'trace_context'])
    .where('job_id', 'in', [...jobIds])
    .execute();
  for (const row of rows) {
    const carrier = carrierOfStored(row.trace_context);
    if (carrier !== null) found.set(row.job_id, carrier);
  }
  return found;
}

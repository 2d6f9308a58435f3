import type { Kysely, Transaction } from 'kysely';
import { carrierOfStored, storedCarrier, type TraceCarrier } from '../otel/trace-context.js';
import { activeTracer } from '../otel/tracing.js';
import { type PaymentsContext, paymentsDb, paymentsTrx } from './payments-context.js';
import { ATTEMPT_TRACE_TABLE, type PaymentsDatabase } from './payments-tables.js';

/** Stores the checkout's trace context with the attempt it created (in the checkout's transaction); nothing for `null`. */
export async function recordAttemptTrace(
  db: Kysely<PaymentsDatabase>,
  attemptId: string,
  carrier: TraceCarrier | null,
): Promise<void> {
  const text = storedCarrier(carrier);
  if (text === null) return;
  await db.insertInto(ATTEMPT_TRACE_TABLE).values({ attempt_id: attemptId, trace_context: text }).execute();
}

/**
 * The trace context of the checkout that created attempt `attemptId`, or `null` (none stored, or no SDK registered:
 * then nothing is read). Read in `trx` when the caller's transaction is still open (on SQLite, with one connection,
 * a read outside it would wait for that transaction forever).
 */
export async function attemptTraceOf<DB>(
  ctx: PaymentsContext<DB>,
  attemptId: string,
  trx?: Transaction<DB>,
): Promise<TraceCarrier | null> {
  if (activeTracer() === undefined) return null;
  const row = await (trx === undefined ? paymentsDb(ctx) : paymentsTrx(ctx, trx))
    .selectFrom(ATTEMPT_TRACE_TABLE)
    .select('trace_context')
    .where('attempt_id', '=', attemptId)
    .executeTakeFirst();
  return carrierOfStored(row?.trace_context);
}

import type { RequestKey } from '../../core/request-key.js';
import { isDuplicateKeyError } from './driver-error.js';
import { schemaMissingOf } from './schema-missing.js';
import { keyValues, type SqlContext, statement } from './sql-context.js';
import { onSchema } from './table-namespace.js';

/** The side table of migration 0018: the trace context of a receipt's first delivery. */
export const RECEIPT_TRACE_TABLE = 'payonce_receipt_trace';

/** One row of `payonce_receipt_trace` as Kysely sees it (key columns as in `payonce_receipts`). */
export interface ReceiptTraceDatabase {
  payonce_receipt_trace: {
    provider: string | Uint8Array;
    external_id: string | Uint8Array;
    trace_context: string;
  };
}

const tables = (ctx: SqlContext) => onSchema<ReceiptTraceDatabase>(ctx.db, ctx.schema, ctx.tablePrefix);

/**
 * Stores `traceContext` (JSON text) as the trace of `key`'s first delivery, unless one is stored already (the
 * first writer keeps it). `ON CONFLICT DO NOTHING` on PostgreSQL and SQLite; on MySQL a duplicate-key error means
 * "kept".
 */
export async function recordReceiptTrace(ctx: SqlContext, key: RequestKey, traceContext: string): Promise<void> {
  const { provider, externalId } = keyValues(ctx, key);
  const insert = tables(ctx)
    .insertInto(RECEIPT_TRACE_TABLE)
    .values({ provider, external_id: externalId, trace_context: traceContext });
  try {
    await statement(ctx, () =>
      ctx.dialect.claimInsert === 'on-conflict-do-nothing'
        ? insert.onConflict((conflict) => conflict.doNothing()).execute()
        : insert.execute(),
    );
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}

/** The stored trace context of `key`'s first delivery, or `null`. */
export async function receiptTraceOf(ctx: SqlContext, key: RequestKey): Promise<string | null> {
  const { provider, externalId } = keyValues(ctx, key);
  const row = await statement(ctx, () =>
    tables(ctx)
      .selectFrom(RECEIPT_TRACE_TABLE)
      .select('trace_context')
      .where('provider', '=', provider)
      .where('external_id', '=', externalId)
      .executeTakeFirst(),
  );
  return row?.trace_context ?? null;
}

/**
 * Deletes the trace rows of `keys` (the purge, before it deletes their receipts; a receipt the purge then keeps, as
 * retried in between, loses only its first delivery's trace). A store not migrated to 0018 has no table: nothing to
 * delete, and the purge goes on.
 */
export async function deleteReceiptTraces(
  ctx: SqlContext,
  keys: readonly { provider: string | Uint8Array; external_id: string | Uint8Array }[],
): Promise<void> {
  if (keys.length === 0) return;
  try {
    await statement(ctx, () =>
      tables(ctx)
        .deleteFrom(RECEIPT_TRACE_TABLE)
        .where((eb) =>
          eb.or(keys.map((k) => eb.and([eb('provider', '=', k.provider), eb('external_id', '=', k.external_id)]))),
        )
        .execute(),
    );
  } catch (error) {
    if (schemaMissingOf(error, ctx.dialect.name, ctx.schema) === null) throw error;
  }
}

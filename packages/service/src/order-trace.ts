import type { ColumnType } from 'kysely';
import type { SqlDialectName } from 'payonce/internal/stores/sql/sql-dialect.js';
import { tablesIn } from 'payonce/internal/stores/sql/table-namespace.js';

/** Name of the service's table of order trace ids (migration `0014-service-order-traces`, group `service`). */
export const ORDER_TRACES_TABLE = 'payonce_service_order_traces';

/**
 * One row of `payonce_service_order_traces`: the trace id (32 lowercase hex digits) of the request that created the
 * order or last checked it out with tracing on, and when it was stored (epoch ms UTC).
 */
export interface OrderTracesTable {
  order_id: string;
  trace_id: string;
  updated_at: ColumnType<number | string | bigint, number, number>;
}

/** The Kysely database type of that table. */
export interface OrderTraceDatabase {
  payonce_service_order_traces: OrderTracesTable;
}

/** Where the statements run: the namespace (`SqlStore.schema`) and the dialect of the service's store. */
export interface OrderTraceTarget {
  readonly schema?: string | null;
  readonly name: SqlDialectName;
}

/**
 * Stores `traceId` (32 lowercase hex digits, `activeTraceId`) as the trace of order `orderId`, replacing an earlier
 * one (the checkout's trace, which the webhook and fulfilment spans join, wins over the creation's): one upsert
 * (`on conflict … do update`; MySQL `on duplicate key update`) on `executor` (the store's Kysely or a transaction
 * of it) inside `target.schema`. `nowMs` is epoch ms UTC.
 * @throws the driver's error when the database fails.
 */
export async function recordOrderTrace(
  target: OrderTraceTarget,
  executor: unknown,
  orderId: string,
  traceId: string,
  nowMs: number,
): Promise<void> {
  const insert = tablesIn<OrderTraceDatabase>(target, executor)
    .insertInto(ORDER_TRACES_TABLE)
    .values({ order_id: orderId, trace_id: traceId, updated_at: nowMs });
  const update = { trace_id: traceId, updated_at: nowMs };
  await (target.name === 'mysql'
    ? insert.onDuplicateKeyUpdate(update)
    : insert.onConflict((conflict) => conflict.column('order_id').doUpdateSet(update))
  ).execute();
}

/**
 * The trace id stored for order `orderId` (`recordOrderTrace`), or `null` when none was (tracing off, an order
 * written before it, no such order). `executor` is a Kysely of the service's database, already in its namespace
 * when `target.schema` is absent.
 * @throws the driver's error when the database fails.
 */
export async function orderTraceOf(
  target: { readonly schema?: string | null },
  executor: unknown,
  orderId: string,
): Promise<string | null> {
  const row = await tablesIn<OrderTraceDatabase>(target, executor)
    .selectFrom(ORDER_TRACES_TABLE)
    .select('trace_id')
    .where('order_id', '=', orderId)
    .executeTakeFirst();
  return row?.trace_id ?? null;
}

/**
 * The link of `traceId` in the operator's trace viewer: `template` with every `{traceId}` replaced, e.g.
 * `http://jaeger:16686/trace/{traceId}` (`otelTraceUrl`); `null` without a template.
 */
export function traceLinkOf(template: string | null, traceId: string): string | null {
  return template === null ? null : template.replaceAll('{traceId}', encodeURIComponent(traceId));
}

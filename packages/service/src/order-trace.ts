import { tablesIn } from 'payonce/internal/stores/sql/table-namespace.js';

/**
 * The column of `payonce_orders` the service adds (migration `0014-service-order-trace`, group `service`): the
 * trace id of the request that last created or checked out the order with tracing on. The library never reads it.
 */
export interface OrderTraceDatabase {
  payonce_orders: { id: string; trace_id: string | null };
}

/**
 * Stores `traceId` (32 lowercase hex digits, `activeTraceId`) with the order `orderId` (replacing an earlier one: the checkout's trace, which the webhook and
 * fulfilment spans join, wins over the creation's). Runs on `executor` (the store's Kysely or a transaction of it)
 * inside `target.schema`. Does nothing for an unknown order.
 * @throws the driver's error when the database fails.
 */
export async function recordOrderTrace(
  target: { readonly schema?: string | null },
  executor: unknown,
  orderId: string,
  traceId: string,
): Promise<void> {
  await tablesIn<OrderTraceDatabase>(target, executor)
    .updateTable('payonce_orders')
    .set({ trace_id: traceId })
    .where('id', '=', orderId)
    .execute();
}

/**
 * The trace id stored with the order `orderId` (`recordOrderTrace`), or `null` when none was (tracing off, an order
 * created before it) or there is no such order.
 * @throws the driver's error when the database fails.
 */
export async function orderTraceOf(
  target: { readonly schema?: string | null },
  executor: unknown,
  orderId: string,
): Promise<string | null> {
  const row = await tablesIn<OrderTraceDatabase>(target, executor)
    .selectFrom('payonce_orders')
    .select('trace_id')
    .where('id', '=', orderId)
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

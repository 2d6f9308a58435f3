import { intOf } from 'payonce/internal/outbox/sql-transaction.js';
import type { JournalEntry } from 'payonce/internal/payments/journal-entry.js';
import type { Order } from 'payonce/internal/payments/order.js';
import type { PaymentAttempt } from 'payonce/internal/payments/payment-attempt.js';
import { tablesOf } from 'payonce/internal/stores/sql/table-namespace.js';
import type { DeliveryRecord } from 'payonce/internal/webhooks/journal/delivery-record.js';
import { orderTraceOf } from './order-trace.js';
import type { ServiceContext } from './service-context.js';
import { FULFILMENTS_TABLE, REFUNDS_TABLE, type ServiceDatabase } from './service-tables.js';

/** An order as the service shows it (no principal). Money in integer minor units; times epoch ms UTC. */
export interface OrderJson {
  readonly id: string;
  readonly status: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly paidAttemptId: string | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/** A payment attempt as the service shows it. */
export interface AttemptJson {
  readonly id: string;
  /** The provider paying through this attempt: `stripe` (checkout), `payme`, `click` or `uzum`. */
  readonly provider: string;
  readonly status: string;
  readonly providerPaymentId: string | null;
  readonly idempotencyKey: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly actionUrl: string | null;
  readonly lastError: string | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/** An attempt in the {@link OrderView}: {@link AttemptJson} and the refunded amount recorded for it. */
export interface ViewAttemptJson extends AttemptJson {
  /** Integer minor units refunded so far (`Payments.refundedOf`): below `amountMinor` after a partial refund. */
  readonly refundedMinor: number;
}

/** One row of a service business table (fulfilment or refund). */
export interface EffectRowJson {
  readonly id: string;
  readonly attemptId: string | null;
  readonly jobId: string | null;
  readonly createdAtMs: number;
}

/** One outbox job of the order. */
export interface JobJson {
  readonly id: string;
  readonly topic: string;
  /** `queued`, `running` (leased), `done` or `dead`. */
  readonly status: string;
  readonly attempts: number;
  readonly lastError: string | null;
  /** The outbox worker that holds (or last held) the job's lease (`serve-<pid>-<random>` in `payonce serve`), or null. */
  readonly leaseOwner: string | null;
}

/** One payment journal entry of the order (every provider report with the decision taken). */
export interface JournalJson {
  readonly eventId: string;
  readonly eventType: string;
  readonly status: string;
  readonly decision: string;
  readonly reason: string | null;
  readonly attemptId: string | null;
  readonly receivedAtMs: number;
}

/** One redacted webhook delivery about one of the order's payments. */
export interface DeliveryJson {
  /** The endpoint's provider name (`stripe`, `standard-webhooks`). */
  readonly provider: string;
  readonly eventId: string | null;
  readonly eventType: string | null;
  readonly decision: string;
  readonly outcome: string;
  readonly signature: string;
  readonly responseStatus: number;
  readonly receivedAtMs: number;
}

/**
 * `GET /orders/:id` (docs/service.md "OrderView"): the order, its trace id, its attempts, how many journal entries moved it to
 * paid (`paidTransitions`: decision `applied`, status `succeeded`), the fulfilments and refunds actually
 * recorded (one row each, so a double effect shows as two), its outbox jobs, its payment journal and the
 * webhook deliveries about its payments (by attempt id = merchant reference and provider payment id), oldest
 * first.
 */
export interface OrderView {
  readonly order: OrderJson;
  /**
   * The trace id (32 hex digits) of the request that created the order or last checked it out with tracing on
   * (`payonce serve --otel`), `null` without one (docs/service.md "OpenTelemetry").
   */
  readonly traceId: string | null;
  readonly attempts: readonly ViewAttemptJson[];
  readonly paidTransitions: number;
  readonly fulfilments: readonly EffectRowJson[];
  readonly refunds: readonly EffectRowJson[];
  readonly jobs: readonly JobJson[];
  readonly journal: readonly JournalJson[];
  readonly deliveries: readonly DeliveryJson[];
}

/** The order as JSON (without its principal). */
export function orderJson(order: Order): OrderJson {
  return {
    id: order.id,
    status: order.status,
    amountMinor: order.amountMinor,
    currency: order.currency,
    paidAttemptId: order.paidAttemptId,
    createdAtMs: order.createdAtMs,
    updatedAtMs: order.updatedAtMs,
  };
}

/** The attempt as JSON. */
export function attemptJson(attempt: PaymentAttempt): AttemptJson {
  return {
    id: attempt.id,
    provider: attempt.provider,
    status: attempt.status,
    providerPaymentId: attempt.providerPaymentId,
    idempotencyKey: attempt.idempotencyKey,
    amountMinor: attempt.amountMinor,
    currency: attempt.currency,
    actionUrl: attempt.actionUrl,
    lastError: attempt.lastError,
    createdAtMs: attempt.createdAtMs,
    updatedAtMs: attempt.updatedAtMs,
  };
}

function journalJson(entry: JournalEntry): JournalJson {
  return {
    eventId: entry.eventId,
    eventType: entry.eventType,
    status: entry.status,
    decision: entry.decision,
    reason: entry.reason,
    attemptId: entry.attemptId,
    receivedAtMs: entry.receivedAtMs,
  };
}

function deliveryJson(record: DeliveryRecord): DeliveryJson {
  return {
    provider: record.provider,
    eventId: record.eventKey,
    eventType: record.eventType,
    decision: record.decision,
    outcome: record.outcome,
    signature: record.signature,
    responseStatus: record.responseStatus,
    receivedAtMs: record.receivedAtMs,
  };
}

async function effectRows(
  ctx: ServiceContext,
  table: typeof FULFILMENTS_TABLE | typeof REFUNDS_TABLE,
  orderId: string,
) {
  const db = tablesOf<ServiceDatabase>(ctx.store);
  const rows = await db
    .selectFrom(table)
    .selectAll()
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(
    (row): EffectRowJson => ({
      id: row.id,
      attemptId: row.attempt_id,
      jobId: row.job_id,
      createdAtMs: intOf(row.created_at, `${table}.created_at`),
    }),
  );
}

/** The deliveries about any of the attempts (merchant reference or provider payment id), deduplicated, oldest first. */
async function deliveriesOf(ctx: ServiceContext, attempts: readonly PaymentAttempt[]): Promise<DeliveryRecord[]> {
  const references = new Set<string>();
  for (const attempt of attempts) {
    references.add(attempt.id);
    if (attempt.providerPaymentId !== null) references.add(attempt.providerPaymentId);
  }
  const byId = new Map<string, DeliveryRecord>();
  for (const reference of references) {
    for (const record of await ctx.journal.forPayment(reference)) byId.set(record.id, record);
  }
  return [...byId.values()].sort((a, b) => a.receivedAtMs - b.receivedAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Builds the {@link OrderView} of `orderId` for `principal`, or `null` when the order does not exist or belongs
 * to another principal (the same answer, so other customers' ids cannot be probed).
 * @throws the driver's error when the database fails.
 */
export async function orderView(ctx: ServiceContext, orderId: string, principal: string): Promise<OrderView | null> {
  const order = await ctx.payments.findOrder(orderId);
  if (!order || order.principal !== principal) return null;
  const attempts = await ctx.payments.attemptsOf(orderId);
  const journal = await ctx.payments.journalOf(orderId);
  const jobs = await ctx.outbox.jobsByDedupeKey(`order:${orderId}`);
  return {
    order: orderJson(order),
    traceId: await orderTraceOf(ctx.store, ctx.store.db, orderId),
    attempts: await Promise.all(
      attempts.map(async (attempt) => ({
        ...attemptJson(attempt),
        refundedMinor: await ctx.payments.refundedOf(attempt.id),
      })),
    ),
    paidTransitions: journal.filter((entry) => entry.decision === 'applied' && entry.status === 'succeeded').length,
    fulfilments: await effectRows(ctx, FULFILMENTS_TABLE, orderId),
    refunds: await effectRows(ctx, REFUNDS_TABLE, orderId),
    jobs: jobs.map((job) => ({
      id: job.id,
      topic: job.topic,
      status: job.status,
      attempts: job.attempts,
      lastError: job.lastError,
      leaseOwner: job.leaseOwner,
    })),
    journal: journal.map(journalJson),
    deliveries: (await deliveriesOf(ctx, attempts)).map(deliveryJson),
  };
}

import { toJournalEntry } from 'payonce/internal/payments/journal-entry.js';
import { orderTraceOf, traceLinkOf } from '../order-trace.js';
import {
  type ActionItem,
  type AttemptItem,
  type DeliveryItem,
  deliveryItem,
  listActions,
  listAttempts,
  type OrderItem,
} from './admin-lists.js';
import { type AdminReads, num, numOrNull } from './admin-reads.js';

/** What a timeline entry is about. */
export type TimelineKind =
  | 'order'
  | 'attempt'
  | 'provider-call'
  | 'transition'
  | 'delivery'
  | 'job'
  | 'effect'
  | 'alert'
  | 'action';

/** One dated line of an order's timeline. `tone`: `ok`, `info`, `warn` (an anomaly), `bad` (refused, failed). */
export interface TimelineEntry {
  readonly atMs: number;
  readonly kind: TimelineKind;
  readonly title: string;
  readonly detail: string | null;
  /** Id of the row behind the entry (attempt, delivery, job, fulfilment, action id, journal event id). */
  readonly ref: string | null;
  readonly tone: 'ok' | 'info' | 'warn' | 'bad';
}

/**
 * "Why is this order in this state?": the order, its attempts, and every dated fact about it, oldest first —
 * attempts created, provider calls and their answers (checkout responses and reconciliation, from the payment
 * journal), every webhook delivery about its payments with its decision and reason (a refused one only when it
 * was authentic, including one refused before its payload was read, found by the payment ids in its redacted
 * payload; forgeries stay in the journal but never on a timeline), the
 * transitions the payment journal decided, outbox jobs, effects (fulfilments, refunds), alerts (rejected reports
 * and anomalies) and operator actions. Every text is redacted (payloads were redacted by the intake; error and
 * reason texts are scrubbed again).
 */
export interface OrderTimeline {
  readonly order: OrderItem;
  /**
   * The trace of the request that created the order or last checked it out with tracing on (`payonce serve
   * --otel`): its id (32 hex digits) and its link in the trace viewer (`otelTraceUrl`, else `null`); `null` when
   * none was stored.
   */
  readonly trace: { readonly id: string; readonly url: string | null } | null;
  readonly attempts: readonly AttemptItem[];
  readonly deliveries: readonly DeliveryItem[];
  readonly actions: readonly ActionItem[];
  readonly counts: {
    readonly paidTransitions: number;
    readonly deliveries: number;
    readonly rejectedDeliveries: number;
    readonly fulfilments: number;
    readonly refunds: number;
  };
  readonly entries: readonly TimelineEntry[];
}

/**
 * The deliveries about an order's payments, the latest 500 (shown oldest first). A refused delivery counts only
 * when it was authentic (`signature = 'valid'`): anyone can send a forgery naming a customer's payment id, and
 * such forgeries must not fill or hide the order's timeline (issue #34 item 7). They stay in the journal.
 */
async function deliveriesAbout(reads: AdminReads, references: readonly string[]): Promise<DeliveryItem[]> {
  if (references.length === 0) return [];
  const { db } = reads;
  const read = await db
    .selectFrom('payonce_webhook_deliveries')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('object_id', 'in', [...references]),
        eb('payment_id', 'in', [...references]),
        eb('merchant_reference', 'in', [...references]),
      ]),
    )
    .where((eb) => eb.or([eb('decision', '<>', 'rejected'), eb('signature', '=', 'valid')]))
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .limit(500)
    .execute();
  // Authentic but refused before extraction (unreadable payload): no id columns, only the redacted payload.
  const unread = await db
    .selectFrom('payonce_webhook_deliveries')
    .selectAll()
    .where('decision', '=', 'rejected')
    .where('signature', '=', 'valid')
    .where('payment_id', 'is', null)
    .where('merchant_reference', 'is', null)
    .where((eb) => eb.or(references.map((ref) => eb('payload', 'like', `%${ref}%`))))
    .orderBy('received_at', 'desc')
    .limit(100)
    .execute();
  const byId = new Map<string, DeliveryItem>();
  for (const row of read) byId.set(row.id, deliveryItem(reads, row));
  for (const row of unread) {
    if (references.some((ref) => row.payload?.includes(ref))) byId.set(row.id, deliveryItem(reads, row));
  }
  return [...byId.values()].sort((a, b) => a.receivedAtMs - b.receivedAtMs || (a.id < b.id ? -1 : 1));
}

function deliveryEntry(d: DeliveryItem): TimelineEntry {
  const what = d.eventType ?? 'unread payload';
  const tone = d.decision === 'rejected' || d.outcome === 'failed' ? 'bad' : d.outcome === 'declined' ? 'warn' : 'ok';
  const signature = d.signature === 'valid' ? '' : `, signature ${d.signature}`;
  return {
    atMs: d.receivedAtMs,
    kind: 'delivery',
    title: `${d.provider} delivery ${what}: ${d.decision} / ${d.outcome} → ${d.responseStatus}${signature}`,
    detail: d.error,
    ref: d.id,
    tone,
  };
}

/**
 * Builds the {@link OrderTimeline} of `orderId`, or `null` when there is no such order. `traceUrl` is the trace
 * viewer's link template with `{traceId}` (`otelTraceUrl`), `null` for none.
 * @throws the driver's error when the database fails.
 */
export async function orderTimeline(
  reads: AdminReads,
  orderId: string,
  traceUrl: string | null = null,
): Promise<OrderTimeline | null> {
  const { db, redactor } = reads;
  const row = await db.selectFrom('payonce_orders').selectAll().where('id', '=', orderId).executeTakeFirst();
  if (!row) return null;
  const order: OrderItem = {
    id: row.id,
    status: row.status,
    amountMinor: num(row.amount_minor),
    currency: row.currency,
    paidAttemptId: row.paid_attempt_id,
    createdAtMs: num(row.created_at),
    updatedAtMs: num(row.updated_at),
  };
  const attempts = [...(await listAttempts(reads, { orderId, limit: 200 })).items].reverse();
  const journal = (
    await db
      .selectFrom('payonce_payment_events')
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('received_at')
      .execute()
  ).map(toJournalEntry);
  const references = attempts.flatMap((a) => (a.providerPaymentId ? [a.id, a.providerPaymentId] : [a.id]));
  const deliveries = await deliveriesAbout(reads, references);
  const jobs = await db
    .selectFrom('payonce_outbox')
    .selectAll()
    .where('dedupe_key', '=', `order:${orderId}`)
    .orderBy('created_at')
    .execute();
  const fulfilments = await db
    .selectFrom('payonce_service_fulfilments')
    .selectAll()
    .where('order_id', '=', orderId)
    .execute();
  const refunds = await db.selectFrom('payonce_service_refunds').selectAll().where('order_id', '=', orderId).execute();
  const actions = [...(await listActions(reads, { orderId, limit: 200 })).items].reverse();
  const scrub = (value: string | null) => (value === null ? null : redactor.scrubText(value));

  const entries: TimelineEntry[] = [
    {
      atMs: order.createdAtMs,
      kind: 'order',
      title: `order created: ${order.amountMinor} ${order.currency} (minor units)`,
      detail: `now ${order.status}`,
      ref: order.id,
      tone: 'info',
    },
  ];
  for (const attempt of attempts) {
    entries.push({
      atMs: attempt.createdAtMs,
      kind: 'attempt',
      title: `attempt ${attempt.id} created (now ${attempt.status})`,
      detail: attempt.lastError,
      ref: attempt.id,
      tone: attempt.status === 'failed' || attempt.status === 'unknown' ? 'warn' : 'info',
    });
  }
  for (const entry of journal) {
    const providerCall = entry.eventType === 'checkout.response' || entry.eventType.startsWith('reconciliation');
    const anomaly = entry.decision === 'rejected' || (entry.decision === 'applied' && entry.reason !== null);
    const what = providerCall
      ? entry.eventType === 'checkout.response'
        ? 'provider answered the create'
        : `${entry.eventType}: provider reports`
      : `event ${entry.eventType} (${entry.eventId})`;
    entries.push({
      atMs: entry.receivedAtMs,
      kind: anomaly ? 'alert' : providerCall ? 'provider-call' : 'transition',
      title: `${what} ${entry.status} → ${entry.decision}`,
      detail: scrub(entry.reason),
      ref: entry.eventId,
      tone: entry.decision === 'rejected' ? 'bad' : anomaly ? 'warn' : entry.decision === 'applied' ? 'ok' : 'info',
    });
  }
  for (const delivery of deliveries) entries.push(deliveryEntry(delivery));
  for (const job of jobs) {
    entries.push({
      atMs: num(job.created_at),
      kind: 'job',
      title: `outbox job ${job.topic} enqueued`,
      detail: null,
      ref: job.id,
      tone: 'info',
    });
    const finished = numOrNull(job.finished_at);
    if (finished !== null) {
      entries.push({
        atMs: finished,
        kind: 'job',
        title: `outbox job ${job.topic} ${job.status} after ${num(job.attempts)} run(s)`,
        detail: scrub(job.last_error),
        ref: job.id,
        tone: job.status === 'dead' ? 'bad' : 'ok',
      });
    }
  }
  for (const [kind, rows] of [
    ['fulfilment', fulfilments],
    ['refund', refunds],
  ] as const) {
    for (const effect of rows) {
      entries.push({
        atMs: num(effect.created_at),
        kind: 'effect',
        title: `${kind} recorded (${effect.id})`,
        detail: effect.job_id === null ? null : `by job ${effect.job_id}`,
        ref: effect.id,
        tone: 'ok',
      });
    }
  }
  for (const action of actions) {
    entries.push({
      atMs: action.atMs,
      kind: 'action',
      title: `operator ${action.actor} (${action.via}): ${action.action} ${action.target} → ${action.outcome}`,
      detail: null,
      ref: action.id,
      tone: action.outcome === 'refused' ? 'warn' : 'info',
    });
  }
  const order_ = ['order', 'attempt', 'provider-call', 'delivery', 'transition', 'alert', 'job', 'effect', 'action'];
  entries.sort((a, b) => a.atMs - b.atMs || order_.indexOf(a.kind) - order_.indexOf(b.kind));
  const traceId = await orderTraceOf({}, db, orderId);
  return {
    order,
    trace: traceId === null ? null : { id: traceId, url: traceLinkOf(traceUrl, traceId) },
    attempts,
    deliveries,
    actions,
    counts: {
      paidTransitions: journal.filter((e) => e.decision === 'applied' && e.status === 'succeeded').length,
      deliveries: deliveries.length,
      rejectedDeliveries: deliveries.filter((d) => d.decision === 'rejected').length,
      fulfilments: fulfilments.length,
      refunds: refunds.length,
    },
    entries,
  };
}

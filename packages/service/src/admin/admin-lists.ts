import { type Expression, type SqlBool, sql } from 'kysely';
import { keysetPage, type Page, type PageQuery } from './admin-cursor.js';
import { type AdminReads, num, numOrNull, staleAfterFor, text } from './admin-reads.js';

/** A receipt as the console shows it: never its stored response body. Times epoch ms UTC. */
export interface ReceiptItem {
  readonly provider: string;
  readonly externalId: string;
  readonly status: string;
  /** Claims so far; also the fencing token a release must name (`expectedAttempts`). */
  readonly attempts: number;
  readonly claimedAtMs: number;
  readonly finishedAtMs: number | null;
  /** The stale limit of this receipt's kind, ms. */
  readonly staleAfterMs: number;
  /** `processing` and claimed at least `staleAfterMs` ago. */
  readonly stuck: boolean;
  readonly responseStatus: number | null;
  /** The handler's error (scrubbed), when `failed`. */
  readonly error: string | null;
}

/** Filters of the receipts list. */
export interface ReceiptQuery extends PageQuery {
  readonly status?: 'processing' | 'completed' | 'failed';
  readonly provider?: string;
  /** Only stuck receipts (`processing` older than their stale limit). */
  readonly stuck?: boolean;
}

function stuckCondition(reads: AdminReads): Expression<SqlBool> {
  const now = reads.clock.now();
  const { stale } = reads;
  const webhook = stale.webhookProviders.length > 0 ? stale.webhookProviders : ['\u0000none'];
  return sql<SqlBool>`(status = 'processing' and (
    (provider like 'payments:%' and claimed_at <= ${now - stale.payments})
    or (provider in (${sql.join(webhook)}) and claimed_at <= ${now - stale.webhook})
    or (provider not like 'payments:%' and provider not in (${sql.join(webhook)}) and claimed_at <= ${now - stale.http})))`;
}

/** Receipts, newest claim first, with filters. @throws {ServiceError} `ADMIN_QUERY_INVALID` for a bad cursor. */
export async function listReceipts(reads: AdminReads, query: ReceiptQuery): Promise<Page<ReceiptItem>> {
  let q = reads.db.selectFrom('payonce_receipts').selectAll();
  if (query.status) q = q.where('status', '=', query.status);
  if (query.provider) q = q.where('provider', '=', query.provider);
  if (query.stuck) q = q.where(stuckCondition(reads));
  const now = reads.clock.now();
  return keysetPage(q, ['claimed_at', 'provider', 'external_id'], query, (row): ReceiptItem => {
    const provider = text(row.provider);
    const staleAfterMs = staleAfterFor(reads.stale, provider);
    const claimedAtMs = num(row.claimed_at);
    return {
      provider,
      externalId: text(row.external_id),
      status: row.status,
      attempts: num(row.attempts),
      claimedAtMs,
      finishedAtMs: numOrNull(row.finished_at),
      staleAfterMs,
      stuck: row.status === 'processing' && claimedAtMs <= now - staleAfterMs,
      responseStatus: numOrNull(row.response_status),
      error: row.status === 'failed' && row.error !== null ? reads.redactor.scrubText(row.error) : null,
    };
  });
}

/** A journaled webhook delivery (already redacted by the intake). */
export interface DeliveryItem {
  readonly id: string;
  readonly receivedAtMs: number;
  readonly provider: string;
  readonly eventKey: string | null;
  readonly eventType: string | null;
  readonly signature: string;
  readonly decision: string;
  readonly outcome: string;
  readonly responseStatus: number;
  /** Why it was rejected or failed (`CODE: message`), scrubbed. */
  readonly error: string | null;
  readonly durationMs: number;
  readonly paymentId: string | null;
  readonly merchantReference: string | null;
  readonly amountMinor: number | null;
  readonly currency: string | null;
}

/** Filters of the deliveries list (and of a range replay). Times epoch ms UTC, `from` inclusive, `to` exclusive. */
export interface DeliveryFilter {
  readonly provider?: string;
  readonly decision?: 'new' | 'duplicate' | 'in-progress' | 'rejected';
  readonly outcome?: 'completed' | 'declined' | 'replayed' | 'deferred' | 'failed' | 'rejected';
  readonly eventType?: string;
  readonly eventKey?: string;
  readonly fromMs?: number;
  readonly toMs?: number;
}

/** A delivery row as selected. */
export type DeliveryRow = Awaited<ReturnType<typeof selectDeliveries>>[number];

function filteredDeliveries(reads: AdminReads, filter: DeliveryFilter) {
  let q = reads.db.selectFrom('payonce_webhook_deliveries').selectAll();
  if (filter.provider) q = q.where('provider', '=', filter.provider);
  if (filter.decision) q = q.where('decision', '=', filter.decision);
  if (filter.outcome) q = q.where('outcome', '=', filter.outcome);
  if (filter.eventType) q = q.where('event_type', '=', filter.eventType);
  if (filter.eventKey) q = q.where('event_key', '=', filter.eventKey);
  if (filter.fromMs !== undefined) q = q.where('received_at', '>=', filter.fromMs);
  if (filter.toMs !== undefined) q = q.where('received_at', '<', filter.toMs);
  return q;
}

function selectDeliveries(reads: AdminReads, filter: DeliveryFilter, limit: number) {
  return filteredDeliveries(reads, filter).orderBy('received_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/**
 * A delivery row as the console shows it. Identifiers are scrubbed again (the intake scrubs them before storage
 * now; rows stored before it did may hold a card number, e-mail address or phone number inside an id).
 */
export function deliveryItem(reads: AdminReads, row: DeliveryRow): DeliveryItem {
  const id = (value: string | null) => (value === null ? null : reads.redactor.scrubText(value));
  return {
    id: row.id,
    receivedAtMs: num(row.received_at),
    provider: row.provider,
    eventKey: id(row.event_key),
    eventType: row.event_type,
    signature: row.signature,
    decision: row.decision,
    outcome: row.outcome,
    responseStatus: num(row.response_status),
    error: row.error === null ? null : reads.redactor.scrubText(row.error),
    durationMs: num(row.duration_ms),
    paymentId: id(row.payment_id),
    merchantReference: id(row.merchant_reference),
    amountMinor: numOrNull(row.amount_minor),
    currency: row.currency,
  };
}

/** Deliveries, newest first, with filters. @throws {ServiceError} `ADMIN_QUERY_INVALID` for a bad cursor. */
export async function listDeliveries(
  reads: AdminReads,
  query: DeliveryFilter & PageQuery,
): Promise<Page<DeliveryItem>> {
  const q = filteredDeliveries(reads, query);
  return keysetPage(q, ['received_at', 'id'], query, (row) => deliveryItem(reads, row));
}

/** Every delivery a range replay selects (newest first, at most `max`). */
export async function deliveriesInRange(
  reads: AdminReads,
  filter: DeliveryFilter,
  max: number,
): Promise<DeliveryRow[]> {
  return selectDeliveries(reads, filter, max);
}

/** An outbox job. */
export interface JobItem {
  readonly id: string;
  readonly topic: string;
  readonly dedupeKey: string;
  readonly status: string;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly createdAtMs: number;
  readonly availableAtMs: number;
  readonly finishedAtMs: number | null;
}

/** Filters of the jobs list. */
export interface JobQuery extends PageQuery {
  readonly status?: 'queued' | 'running' | 'done' | 'dead';
  readonly topic?: string;
}

/** Outbox jobs, newest first. @throws {ServiceError} `ADMIN_QUERY_INVALID` for a bad cursor. */
export async function listJobs(reads: AdminReads, query: JobQuery): Promise<Page<JobItem>> {
  let q = reads.db.selectFrom('payonce_outbox').selectAll();
  if (query.status) q = q.where('status', '=', query.status);
  if (query.topic) q = q.where('topic', '=', query.topic);
  return keysetPage(
    q,
    ['created_at', 'id'],
    query,
    (row): JobItem => ({
      id: row.id,
      topic: row.topic,
      dedupeKey: row.dedupe_key,
      status: row.status,
      attempts: num(row.attempts),
      lastError: row.last_error === null ? null : reads.redactor.scrubText(row.last_error),
      createdAtMs: num(row.created_at),
      availableAtMs: num(row.available_at),
      finishedAtMs: numOrNull(row.finished_at),
    }),
  );
}

/** A payment attempt. */
export interface AttemptItem {
  readonly id: string;
  readonly orderId: string;
  readonly provider: string;
  readonly status: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly providerPaymentId: string | null;
  readonly lastError: string | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/** Filters of the attempts list; `unresolved` = `creating` or `unknown`. */
export interface AttemptQuery extends PageQuery {
  readonly status?:
    | 'creating'
    | 'pending'
    | 'requires_action'
    | 'succeeded'
    | 'failed'
    | 'cancelled'
    | 'unknown'
    | 'unresolved';
  readonly orderId?: string;
}

/** Payment attempts, newest first. @throws {ServiceError} `ADMIN_QUERY_INVALID` for a bad cursor. */
export async function listAttempts(reads: AdminReads, query: AttemptQuery): Promise<Page<AttemptItem>> {
  let q = reads.db.selectFrom('payonce_payment_attempts').selectAll();
  if (query.status === 'unresolved') q = q.where('status', 'in', ['creating', 'unknown']);
  else if (query.status) q = q.where('status', '=', query.status);
  if (query.orderId) q = q.where('order_id', '=', query.orderId);
  return keysetPage(
    q,
    ['created_at', 'id'],
    query,
    (row): AttemptItem => ({
      id: row.id,
      orderId: row.order_id,
      provider: row.provider,
      status: row.status,
      amountMinor: num(row.amount_minor),
      currency: row.currency,
      providerPaymentId: row.provider_payment_id,
      lastError: row.last_error === null ? null : reads.redactor.scrubText(row.last_error),
      createdAtMs: num(row.created_at),
      updatedAtMs: num(row.updated_at),
    }),
  );
}

/** An order (without its principal). */
export interface OrderItem {
  readonly id: string;
  readonly status: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly paidAttemptId: string | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/** Filters of the orders list. */
export interface OrderQuery extends PageQuery {
  readonly status?: 'draft' | 'awaiting_payment' | 'paid' | 'fulfilling' | 'completed' | 'cancelled' | 'refunded';
}

/** Orders, newest first. @throws {ServiceError} `ADMIN_QUERY_INVALID` for a bad cursor. */
export async function listOrders(reads: AdminReads, query: OrderQuery): Promise<Page<OrderItem>> {
  let q = reads.db.selectFrom('payonce_orders').selectAll();
  if (query.status) q = q.where('status', '=', query.status);
  return keysetPage(
    q,
    ['created_at', 'id'],
    query,
    (row): OrderItem => ({
      id: row.id,
      status: row.status,
      amountMinor: num(row.amount_minor),
      currency: row.currency,
      paidAttemptId: row.paid_attempt_id,
      createdAtMs: num(row.created_at),
      updatedAtMs: num(row.updated_at),
    }),
  );
}

/** One journaled operator action. */
export interface ActionItem {
  readonly id: string;
  readonly atMs: number;
  readonly actor: string;
  /** `session` (console cookie) or `token` (bearer). */
  readonly via: string;
  readonly action: string;
  readonly target: string;
  readonly orderId: string | null;
  readonly dryRun: boolean;
  /** `done`, `refused` or `dry-run`. */
  readonly outcome: string;
  /** The action's redacted JSON result. */
  readonly detail: unknown;
}

/** Filters of the action journal. */
export interface ActionQuery extends PageQuery {
  readonly orderId?: string;
  readonly action?: string;
}

/** The operator action journal, newest first. @throws {ServiceError} `ADMIN_QUERY_INVALID` for a bad cursor. */
export async function listActions(reads: AdminReads, query: ActionQuery): Promise<Page<ActionItem>> {
  let q = reads.db.selectFrom('payonce_admin_actions').selectAll();
  if (query.orderId) q = q.where('order_id', '=', query.orderId);
  if (query.action) q = q.where('action', '=', query.action);
  return keysetPage(
    q,
    ['at', 'id'],
    query,
    (row): ActionItem => ({
      id: row.id,
      atMs: num(row.at),
      actor: row.actor,
      via: row.via,
      action: row.action,
      target: row.target,
      orderId: row.order_id,
      dryRun: num(row.dry_run) === 1,
      outcome: row.outcome,
      detail: row.detail === null ? null : (JSON.parse(row.detail) as unknown),
    }),
  );
}

import { type StormTimelineEvent, timelineEvent } from './storm-timeline.js';

/** The parts of the sandbox's `GET /_sandbox/ledger` the timeline reads (docs/sandbox.md). */
export interface LedgerForTimeline {
  readonly payments: readonly {
    readonly id: string;
    readonly orderId: string | null;
    readonly idempotencyKey: string | null;
    readonly requestId: string;
  }[];
  readonly refunds: readonly {
    readonly id: string;
    readonly paymentIntentId: string;
    readonly amountMinor: number;
    readonly status: string;
    readonly createdSec: number;
  }[];
  readonly deliveries: readonly {
    readonly eventId: string;
    readonly eventType: string;
    readonly paymentId: string;
    readonly kind: string;
    readonly attempt: number;
    readonly sentAtMs: number;
    readonly status: number | null;
    readonly error: string | null;
  }[];
  readonly faults: readonly {
    readonly fault: string;
    readonly phase: string;
    readonly requestId: string | null;
    readonly eventId: string | null;
    readonly source: string;
    readonly detail: string | null;
    readonly atMs: number;
  }[];
  readonly requests: readonly {
    readonly requestId: string;
    readonly method: string;
    readonly path: string;
    readonly idempotencyKey: string | null;
    readonly status: number | null;
    readonly replayed: boolean;
    readonly faults: readonly string[];
    readonly atMs: number;
  }[];
}

const list = <T>(value: unknown): readonly T[] => (Array.isArray(value) ? (value as T[]) : []);

/** Reads the ledger's JSON leniently: a missing list is empty (an older sandbox, another provider's). */
export function ledgerForTimeline(json: unknown): LedgerForTimeline {
  const root = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  return {
    payments: list(root.payments),
    refunds: list(root.refunds),
    deliveries: list(root.deliveries),
    faults: list(root.faults),
    requests: list(root.requests),
  };
}

/** The order each of the sandbox's payments, API requests and events belongs to. */
function ownership(ledger: LedgerForTimeline, orders: ReadonlySet<string>) {
  const paymentOrder = new Map<string, string>();
  const keyOrder = new Map<string, string>();
  const requestOrder = new Map<string, string>();
  for (const p of ledger.payments) {
    if (p.orderId === null || !orders.has(p.orderId)) continue;
    paymentOrder.set(p.id, p.orderId);
    requestOrder.set(p.requestId, p.orderId);
    if (p.idempotencyKey !== null) keyOrder.set(p.idempotencyKey, p.orderId);
  }
  const orderOfRequest = (r: LedgerForTimeline['requests'][number]): string | undefined => {
    const byId = requestOrder.get(r.requestId);
    if (byId !== undefined) return byId;
    if (r.idempotencyKey !== null && keyOrder.has(r.idempotencyKey)) return keyOrder.get(r.idempotencyKey);
    const segment = r.path.split('/')[3];
    return segment === undefined ? undefined : paymentOrder.get(segment);
  };
  for (const r of ledger.requests) {
    const order = orderOfRequest(r);
    if (order !== undefined) requestOrder.set(r.requestId, order);
  }
  const eventOrder = new Map<string, string>();
  for (const d of ledger.deliveries) {
    const order = paymentOrder.get(d.paymentId);
    if (order !== undefined) eventOrder.set(d.eventId, order);
  }
  return { paymentOrder, requestOrder, eventOrder };
}

/**
 * The provider side of the timeline of `orders`, from the sandbox's ledger: the app's API requests to the sandbox
 * (tied to an order through the PaymentIntent they created, its idempotency key or its id in the path) with the
 * faults injected into them, the webhook deliveries about the orders' payments with the app's answer and attempt
 * number, refunds, and webhook faults (duplicates, reordering, drops). Reads only; times are the sandbox's clock.
 */
export function providerTimeline(ledger: LedgerForTimeline, orders: ReadonlySet<string>): StormTimelineEvent[] {
  const { paymentOrder, requestOrder, eventOrder } = ownership(ledger, orders);
  const events: StormTimelineEvent[] = [];
  for (const r of ledger.requests) {
    const orderId = requestOrder.get(r.requestId);
    if (orderId === undefined) continue;
    events.push(
      timelineEvent({
        atMs: r.atMs,
        orderId,
        actor: 'app→provider',
        what: `${r.method} ${r.path}`,
        status: r.status,
        idempotencyKey: r.idempotencyKey,
        faults: r.faults,
        detail: [r.requestId, r.replayed ? 'replayed from the idempotency key' : null].filter(Boolean).join(', '),
      }),
    );
  }
  for (const d of ledger.deliveries) {
    const orderId = paymentOrder.get(d.paymentId);
    if (orderId === undefined) continue;
    events.push(
      timelineEvent({
        atMs: d.sentAtMs,
        orderId,
        actor: 'provider→app',
        what: `webhook ${d.eventType} (${d.kind})`,
        status: d.status,
        attempt: d.attempt,
        detail: [d.eventId, d.error].filter(Boolean).join(', '),
      }),
    );
  }
  for (const refund of ledger.refunds) {
    const orderId = paymentOrder.get(refund.paymentIntentId);
    if (orderId === undefined) continue;
    events.push(
      timelineEvent({
        atMs: refund.createdSec * 1000,
        orderId,
        actor: 'provider',
        what: `refund ${refund.id} ${refund.status}`,
        detail: `${refund.amountMinor} minor units of ${refund.paymentIntentId}`,
      }),
    );
  }
  for (const f of ledger.faults) {
    if (f.phase !== 'webhook' || f.eventId === null) continue;
    const orderId = eventOrder.get(f.eventId);
    if (orderId === undefined) continue;
    events.push(
      timelineEvent({
        atMs: f.atMs,
        orderId,
        actor: 'provider',
        what: `fault ${f.fault}`,
        faults: [f.fault],
        detail: [f.eventId, f.source, f.detail].filter(Boolean).join(', '),
      }),
    );
  }
  return events;
}

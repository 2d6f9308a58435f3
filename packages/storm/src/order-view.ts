/** One payment attempt as `GET /orders/:id` shows it (docs/service.md `OrderView.attempts`). */
export interface ViewAttempt {
  readonly id: string;
  readonly status: string;
  readonly providerPaymentId: string | null;
  readonly amountMinor: number;
  readonly currency: string;
}

/** One outbox job of the order (`queued`, `running` while leased, `done`, `dead`). */
export interface ViewJob {
  readonly id: string;
  readonly topic: string;
  readonly status: string;
  readonly attempts: number;
  /**
   * The outbox worker holding (or last holding) the job's lease, as the service reports it (`payonce serve`:
   * `serve-<pid>-<random>`), or `null` when the service does not say. Lets replica scenarios find which replica
   * runs a fulfilment.
   */
  readonly leaseOwner?: string | null;
}

/** One journal entry: a provider report and what the service decided about it. */
export interface ViewJournalEntry {
  readonly eventId: string;
  readonly status: string;
  readonly decision: string;
  readonly reason: string | null;
}

/** One webhook delivery the service journaled for the order's payments. */
export interface ViewDelivery {
  /** `null` when the delivery carried no readable event id. */
  readonly eventId: string | null;
  readonly decision: string;
}

/**
 * The parts of the service's `OrderView` (docs/service.md) the storm judges by: order status and amount, attempts,
 * `paidTransitions`, fulfilment rows, outbox jobs, journal and deliveries. Money in integer minor units.
 */
export interface OrderView {
  readonly order: {
    readonly id: string;
    readonly status: string;
    readonly amountMinor: number;
    readonly currency: string;
    readonly paidAttemptId: string | null;
  };
  readonly attempts: readonly ViewAttempt[];
  readonly paidTransitions: number;
  readonly fulfilments: readonly { readonly id: string; readonly jobId: string | null }[];
  readonly jobs: readonly ViewJob[];
  readonly journal: readonly ViewJournalEntry[];
  readonly deliveries: readonly ViewDelivery[];
}

/** The target answered something that is not an `OrderView` (docs/service.md); the message names the field. */
export class OrderViewShapeError extends Error {
  constructor(field: string) {
    super(`GET /orders/:id answered no valid OrderView (${field})`);
    this.name = 'OrderViewShapeError';
  }
}

type Json = Record<string, unknown>;

function object(value: unknown, field: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new OrderViewShapeError(field);
  return value as Json;
}

function array(value: unknown, field: string): Json[] {
  if (!Array.isArray(value)) throw new OrderViewShapeError(field);
  return value.map((item, i) => object(item, `${field}[${i}]`));
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new OrderViewShapeError(field);
  return value;
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function int(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new OrderViewShapeError(field);
  return value;
}

/**
 * Reads an `OrderView` from parsed JSON, keeping the fields the storm uses.
 * @throws {OrderViewShapeError} a field is missing or of the wrong type.
 */
export function parseOrderView(json: unknown): OrderView {
  const root = object(json, 'body');
  const order = object(root.order, 'order');
  return Object.freeze({
    order: Object.freeze({
      id: text(order.id, 'order.id'),
      status: text(order.status, 'order.status'),
      amountMinor: int(order.amountMinor, 'order.amountMinor'),
      currency: text(order.currency, 'order.currency'),
      paidAttemptId: textOrNull(order.paidAttemptId),
    }),
    attempts: array(root.attempts, 'attempts').map((a, i) =>
      Object.freeze({
        id: text(a.id, `attempts[${i}].id`),
        status: text(a.status, `attempts[${i}].status`),
        providerPaymentId: textOrNull(a.providerPaymentId),
        amountMinor: int(a.amountMinor, `attempts[${i}].amountMinor`),
        currency: text(a.currency, `attempts[${i}].currency`),
      }),
    ),
    paidTransitions: int(root.paidTransitions, 'paidTransitions'),
    fulfilments: array(root.fulfilments, 'fulfilments').map((f, i) =>
      Object.freeze({ id: text(f.id, `fulfilments[${i}].id`), jobId: textOrNull(f.jobId) }),
    ),
    jobs: array(root.jobs, 'jobs').map((j, i) =>
      Object.freeze({
        id: text(j.id, `jobs[${i}].id`),
        topic: text(j.topic, `jobs[${i}].topic`),
        status: text(j.status, `jobs[${i}].status`),
        attempts: int(j.attempts, `jobs[${i}].attempts`),
        leaseOwner: textOrNull(j.leaseOwner),
      }),
    ),
    journal: array(root.journal ?? [], 'journal').map((e, i) =>
      Object.freeze({
        eventId: text(e.eventId, `journal[${i}].eventId`),
        status: text(e.status, `journal[${i}].status`),
        decision: text(e.decision, `journal[${i}].decision`),
        reason: textOrNull(e.reason),
      }),
    ),
    deliveries: array(root.deliveries ?? [], 'deliveries').map((d, i) =>
      Object.freeze({ eventId: textOrNull(d.eventId), decision: text(d.decision, `deliveries[${i}].decision`) }),
    ),
  });
}

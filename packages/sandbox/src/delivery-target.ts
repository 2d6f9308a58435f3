import type { SandboxSigning } from './webhook-signer.js';

/** Where and how one event goes to one webhook endpoint. */
export interface DeliveryTarget {
  /** `we_…` of a registered endpoint, `default` for the sandbox's own (`webhookUrl` / `setWebhookUrl`). */
  readonly endpointId: string;
  /** The id this endpoint sees: `evt_…` in a Stripe envelope, `msg_…` in `webhook-id` for Standard Webhooks. */
  readonly eventId: string;
  /** Read at every attempt, so the default endpoint's URL can be set after events were created. */
  readonly url: () => string | null;
  readonly signing: SandboxSigning;
  /** The exact body sent to this endpoint (UTF-8 JSON). */
  readonly body: string;
}

/** Knobs of one event's delivery (from the plan in effect when the event was made). */
export interface DeliveryPlan {
  readonly parallelDeliveries: number;
  readonly duplicateDeliveries: number;
  readonly forgedSignature: boolean;
  readonly tamperedAmount: 'none' | 'in-transit' | 'resigned';
  readonly webhookDelayMs: number;
  readonly webhookDrop: boolean;
}

/**
 * `body` with the reported amount doubled (`data.object.amount`, or `data.amount` for Standard Webhooks, and the
 * received/captured amounts with it) and, when `newId` is given, the event id replaced: an injected tampered copy.
 */
export function doubledAmountBody(body: string, newId: string | null): string {
  const event = JSON.parse(body) as {
    id?: unknown;
    data?: { object?: Record<string, unknown> } & Record<string, unknown>;
  };
  const data = event.data ?? {};
  const object = (typeof data.object === 'object' && data.object !== null ? data.object : data) as Record<
    string,
    unknown
  >;
  for (const field of ['amount', 'amount_received', 'amount_captured']) {
    if (typeof object[field] === 'number' && (object[field] as number) > 0)
      object[field] = (object[field] as number) * 2;
  }
  if (newId !== null && typeof event.id === 'string') event.id = newId;
  return JSON.stringify(event);
}

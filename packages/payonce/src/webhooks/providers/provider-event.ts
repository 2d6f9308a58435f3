import type { RequestKey } from '../../core/request-key.js';
import type { HeadersInput } from '../verify/headers.js';

/** What a profile reads: the verified body bytes and, for providers that put ids in headers, the headers. */
export interface ExtractInput {
  readonly rawBody: Uint8Array;
  readonly headers?: HeadersInput;
}

/**
 * The provider-neutral fields of one delivery (docs/design.md §5). Fields a provider does not send are `null`, never guessed.
 */
export interface ProviderEvent {
  /** Profile name, also the `provider` part of `key`. */
  readonly provider: string;
  /** The provider's unique event id (Stripe `evt_…`, `webhook-id`, `X-GitHub-Delivery`); `null` if it has none. */
  readonly eventId: string | null;
  /** The provider's event type (`charge.refunded`, `PerformTransaction`, `complete`, `issues.opened`). */
  readonly eventType: string;
  /** Id of the object the event is about (charge, transaction, payment); `null` if none. */
  readonly objectId: string | null;
  /** The provider's id of the payment the object belongs to (Stripe `pi_…`, YooKassa payment id); `null` if none. */
  readonly paymentId: string | null;
  /** Amount in integer minor units of `currency` (cents, tiyin, kopecks); `null` when the event has none. */
  readonly amountMinor: number | null;
  /** ISO-4217 code, upper case; `null` when the event has no amount. */
  readonly currency: string | null;
  /** The merchant's own reference (order or attempt id) carried through the provider; `null` if absent. */
  readonly merchantReference: string | null;
  /** When the provider says the event happened, milliseconds since the epoch UTC; `null` if it does not say. */
  readonly occurredAtMs: number | null;
  /**
   * The receipt key (docs/design.md §3): the provider's event id where it has a unique one, else the composite
   * `objectId:eventType`, so a refund is never a duplicate of the payment it refunds. `null` for read-only
   * queries (Payme `CheckPerformTransaction`, `CheckTransaction`, `GetStatement`) that must be answered from
   * current state every time and never replayed.
   */
  readonly key: RequestKey | null;
  /** The parsed body (JSON value, or a field record for form-encoded providers). */
  readonly payload: unknown;
}

/** Maps one provider's payload to a {@link ProviderEvent}. */
export interface ProviderProfile {
  readonly provider: string;
  /**
   * How the provider writes amounts on the wire: `minor` integers (Stripe, Payme), `major` decimal strings that
   * are converted exactly (Click, YooKassa), or `none` (Standard Webhooks, GitHub).
   */
  readonly amountUnits: 'minor' | 'major' | 'none';
  /**
   * Reads the fields. Call it only after the signature was verified.
   * @throws {MalformedWebhookPayload} the body or a needed field is unreadable.
   * @throws {RawBodyRequired} `rawBody` is not bytes.
   */
  extract(input: ExtractInput): ProviderEvent;
}

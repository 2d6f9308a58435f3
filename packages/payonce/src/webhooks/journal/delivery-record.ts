/**
 * What the intake decided for one delivery (docs/design.md §5 "Journal"):
 * - `new`: the receipt was claimed here and the handler ran (or, for read-only calls without a key, was run);
 * - `duplicate`: the key had a completed receipt; the stored response was replayed, nothing ran;
 * - `in-progress`: another worker holds a fresh claim; answered "retry later", nothing ran;
 * - `rejected`: refused before any receipt was claimed (too large, bad signature, unreadable payload, payload
 *   mismatch, store down before the claim).
 */
export type DeliveryDecision = 'new' | 'duplicate' | 'in-progress' | 'rejected';

/** Every {@link DeliveryDecision}, in a stable order (metrics labels, SQL check constraint). */
export const DELIVERY_DECISIONS: readonly DeliveryDecision[] = Object.freeze([
  'new',
  'duplicate',
  'in-progress',
  'rejected',
]);

/**
 * How the delivery ended:
 * - `completed`: the handler ran and its answer was stored (or, without a key, sent);
 * - `declined`: the handler refused the event with a `WebhookDecline` (a final business answer, stored);
 * - `replayed`: a duplicate got the stored answer;
 * - `deferred`: in progress elsewhere, answered "retry later";
 * - `failed`: the handler or the store failed; the provider is told to redeliver;
 * - `rejected`: refused before any business action.
 */
export type DeliveryOutcome = 'completed' | 'declined' | 'replayed' | 'deferred' | 'failed' | 'rejected';

/**
 * One row of the delivery journal: one per HTTP delivery, whatever its fate. Times are Unix epoch milliseconds,
 * UTC; `payload` is the parsed body AFTER redaction, serialised as JSON (never the raw bytes).
 * @see docs/design.md §5 "Journal".
 */
export interface DeliveryRecord {
  /** UUID v7 of this row; ids made by one process sort in creation order (see `deliveryId`). */
  readonly id: string;
  readonly receivedAtMs: number;
  /** The endpoint's provider name (`stripe`, `payme`, …). */
  readonly provider: string;
  /** The receipt key's external id (`evt_…`, `<transaction id>:PerformTransaction`); `null` when none was read. */
  readonly eventKey: string | null;
  /** The provider's event type; `null` when the payload was not read. */
  readonly eventType: string | null;
  /**
   * `valid` when the signature verified, else the scheme's reject reason (`signature_mismatch`,
   * `timestamp_too_old`, …), or `not_checked` when the delivery was refused before verification (too large).
   */
  readonly signature: string;
  readonly decision: DeliveryDecision;
  readonly outcome: DeliveryOutcome;
  /** HTTP status sent back. */
  readonly responseStatus: number;
  /** `CODE: message` of the error behind a rejection or failure, bounded and scrubbed; `null` otherwise. */
  readonly error: string | null;
  /** Wall time from the first byte handed to the intake to the response, in milliseconds. */
  readonly durationMs: number;
  /** Id of the object the event is about (charge, transaction, payment). */
  readonly objectId: string | null;
  /** The provider's payment id (`pi_…`, YooKassa payment id, Payme transaction id). */
  readonly paymentId: string | null;
  /** The merchant's own order/attempt reference carried by the provider. */
  readonly merchantReference: string | null;
  /** Amount in integer minor units of `currency`. */
  readonly amountMinor: number | null;
  /** ISO-4217 code, upper case. */
  readonly currency: string | null;
  /** Redacted JSON text of the payload, or `null` when it could not be parsed or was not read. */
  readonly payload: string | null;
}

import type { ClaimContext, IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Acknowledgement } from './intake-acknowledgement.js';
import type { DeliveryJournal } from './journal/delivery-journal.js';
import type { RedactionOptions, Redactor } from './journal/redact.js';
import type { ProviderEvent, ProviderProfile } from './providers/provider-event.js';
import type { HeadersInput } from './verify/headers.js';
import type { SignatureScheme } from './verify/signature-scheme.js';

/** What a webhook handler learns besides the event. */
export interface WebhookContext {
  /** The receipt claim it runs under, or `null` for calls without a receipt key (Payme read-only methods). */
  readonly claim: ClaimContext | null;
  /** The request headers (names case-insensitive through `headerValue`). */
  readonly headers: HeadersInput;
  /** When the delivery arrived, epoch milliseconds (the guard's clock). */
  readonly receivedAtMs: number;
}

/**
 * The business step: applies one authentic, extracted event and returns the provider-specific result (any JSON
 * value; see the endpoint's acknowledgement), or throws `WebhookDecline` for a final refusal. Any other throw is
 * a failure: the receipt is marked failed, the provider gets a 5xx (or its retryable error) and redelivers.
 */
export type WebhookHandler = (event: ProviderEvent, context: WebhookContext) => unknown;

/** One provider endpoint of the intake: how to verify, read, handle and answer its deliveries. */
export interface WebhookEndpoint {
  /** Reads the provider's payload (`stripeProfile()`, `paymeProfile()`, …). */
  readonly profile: ProviderProfile;
  /** Verifies the delivery on its raw bytes (`stripeScheme({ secrets })`, `paymeAuthScheme({ keys })`, …). */
  readonly scheme: SignatureScheme;
  readonly handler: WebhookHandler;
  /**
   * How the provider is answered. @default `paymeAcknowledgement()` for profile `payme`, `clickAcknowledgement()`
   * for `click`, else `jsonAcknowledgement()`.
   */
  readonly acknowledgement?: Acknowledgement;
  /**
   * `raw-body`: the SHA-256 of the body is stored with the receipt and a redelivery with the same key but other
   * bytes is refused (`PAYLOAD_MISMATCH`, 422). `none`: not compared. @default `none` for Payme and Click (their
   * retries may renumber the JSON-RPC id or re-sign with a new `sign_time`), else `raw-body`.
   */
  readonly fingerprint?: 'raw-body' | 'none';
}

/** Options of {@link createWebhookIntake}. */
export interface WebhookIntakeOptions {
  /** The receipt guard (any store); its clock also stamps `receivedAtMs`. */
  readonly guard: IdempotencyGuard;
  /** Endpoints by name; the name is the `:provider` path segment of the route. At least one. */
  readonly endpoints: Readonly<Record<string, WebhookEndpoint>>;
  /** Where one row per delivery goes. @default none (deliveries are only reported through `on('delivery')`) */
  readonly journal?: DeliveryJournal;
  /** Redaction applied to every payload and error before it is journaled or reported. @default DEFAULT_REDACT_PATHS */
  readonly redaction?: RedactionOptions | Redactor;
  /**
   * Largest accepted body, in bytes; a larger one is refused with 413 before verification, parsing, any receipt
   * or business action. Set the framework's own limit to the same value. @default 2_097_152 (2 MiB)
   */
  readonly maxBodyBytes?: number;
  /** Journaled error text is cut to this many characters. @default 1_000 */
  readonly maxErrorChars?: number;
  /** Journaled payload JSON is cut to this many characters (marked `…[TRUNCATED]`). @default 65_536 */
  readonly maxPayloadChars?: number;
  /**
   * How long (ms) a redelivery that meets the same event still being processed (another worker or replica) waits
   * for it before the 409 + `Retry-After` (`in_progress`): finished in time, it is answered with the stored
   * acknowledgement as a duplicate (or runs as the retry of a failed one). Keep it well below the provider's
   * delivery timeout (see the provider's docs). See `GuardOptions.waitForInFlightMs` and docs/replicas.md.
   * @default the guard's `waitForInFlightMs` (0: answer 409 at once)
   */
  readonly waitForInFlightMs?: number;
}

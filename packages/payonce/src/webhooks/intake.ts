import type { Store } from '../core/store.js';
import { mayWait } from '../http/client-gone.js';
import type { HttpResponse } from '../http/http-exchange.js';
import type { IntakeRequest } from './intake-acknowledgement.js';
import type { IntakeEventName, IntakeListener } from './intake-events.js';
import type { WebhookEndpointModes, WebhookIntakeOptions } from './intake-options.js';
import { receiveDelivery, rejectTooLarge } from './intake-receive.js';
import { intakeRuntime } from './intake-runtime.js';
import type { Redactor } from './journal/redact.js';
import type { HeadersInput } from './verify/headers.js';

export type {
  AnyWebhookEndpointModes,
  StackWebhookContext,
  StackWebhookEndpoint,
  TransactionalWebhookContext,
  TransactionalWebhookEndpoint,
  TransactionalWebhookHandler,
  WebhookContext,
  WebhookEndpoint,
  WebhookEndpointBase,
  WebhookEndpointFor,
  WebhookEndpointModes,
  WebhookEndpoints,
  WebhookEndpointTransaction,
  WebhookHandler,
  WebhookIntakeOptions,
} from './intake-options.js';

/** The webhook intake: the pipeline of docs/design.md §5 behind one framework-neutral call. */
export interface WebhookIntake {
  /** The body size limit in bytes (for adapters to configure their framework with). */
  readonly maxBodyBytes: number;
  /** The redactor used for the journal and reports (the logger of `src/observe` may share it). */
  readonly redactor: Redactor;
  /**
   * True when a delivery may wait for an in-flight duplicate (`waitForInFlightMs` of the intake, else of the
   * guard, above 0): only then does an adapter need a signal for a sender that goes away (`IntakeRequest.signal`).
   */
  readonly waitsForInFlight: boolean;
  /** True when an endpoint with this name is configured. */
  has(endpoint: string): boolean;
  /**
   * Runs one delivery through the pipeline and returns the response to send. Never throws for anything a sender
   * controls; the response status, headers and body are final.
   * @throws {InvalidOption} `endpoint` is not configured (adapters answer 404 first).
   */
  receive(request: IntakeRequest): Promise<HttpResponse>;
  /**
   * The 413 answer (and journal row) for a delivery whose body the framework refused for size before the intake
   * saw it; `client` as in `IntakeRequest.client` (429 past its `refusalLimit`). @throws {InvalidOption} unknown
   * endpoint.
   */
  rejectTooLarge(endpoint: string, headers: HeadersInput, client?: string): Promise<HttpResponse>;
  /** Subscribes to intake events (`delivery`, `journal-error`, `refusal-limited`); returns an unsubscribe function. */
  on<E extends IntakeEventName>(name: E, listener: IntakeListener<E>): () => void;
}

/**
 * Builds the webhook intake of docs/design.md §5. Per delivery, in this order: size limit (413) → signature on the raw
 * bytes (400 malformed / 401 missing, wrong or stale) → parse and extract with the provider profile (400) →
 * receipt claim on the event key (duplicate: the stored response replayed byte for byte; claim held elsewhere:
 * 409 + `Retry-After`; same key, other body: 422) → business handler → the provider's acknowledgement. A forged,
 * stale or oversized delivery is refused before any receipt is written or any handler runs. A handler that
 * throws leaves the receipt `failed` and gets a 5xx (Payme: JSON-RPC -32400), so the provider redelivers.
 * Events without a key (Payme read-only methods) run the handler every time, without a receipt. Every delivery
 * produces one redacted journal row (if a journal is configured) and one `delivery` event.
 *
 * An endpoint with `transaction: true` (one-commit mode) runs claim, handler and completion in ONE transaction of
 * the guard's SQL store and hands it to the handler as `context.tx`: one commit per delivery; a rollback leaves no
 * receipt. With `transaction: <your stack's transactions>` (`pgTransactions(pool)`, `drizzleTransactions(db)`, …)
 * that ONE transaction is opened on the application's stack instead, and the handler gets the stack's own
 * transaction object as `context.tx` and payonce's view of it as `context.payonceTx`. A bad signature is answered with the endpoint's `rejectionStatus` (by default its scheme's: 400 for
 * Stripe and Standard Webhooks, 401 for the others; docs/webhooks.md).
 * @throws {InvalidOption} no endpoint, a bad `maxBodyBytes`/`maxErrorChars`/`maxPayloadChars`/`rejectionStatus`/
 *   `waitForInFlightMs`, an endpoint `transaction` that is not `true`, `false` or a stack's transactions, or a
 *   stack's transactions whose dialect is not the guard's SQL store's.
 * @throws {TransactionsUnsupported} an endpoint is `transaction: true` but the guard's store is memory or Redis.
 * @see docs/design.md §3, §5; fixtures README (provider answer formats).
 * @example
 * const intake = createWebhookIntake({ guard, journal, endpoints: {
 *   stripe: { profile: stripeProfile(), scheme: stripeScheme({ secrets: [secret] }), handler: (event) => markPaid(event) },
 * } });
 * const response = await intake.receive({ endpoint: 'stripe', rawBody, headers });
 */
export function createWebhookIntake<S extends Store, Modes extends WebhookEndpointModes>(
  options: WebhookIntakeOptions<S, Modes>,
): WebhookIntake {
  const runtime = intakeRuntime(options as unknown as WebhookIntakeOptions);
  return Object.freeze({
    maxBodyBytes: runtime.maxBodyBytes,
    redactor: runtime.redactor,
    waitsForInFlight: mayWait(runtime.waitForInFlightMs, runtime.guard.options.waitForInFlightMs),
    has: (name: string) => runtime.endpoints.has(name),
    receive: (request: IntakeRequest) => receiveDelivery(runtime, request),
    rejectTooLarge: (name: string, headers: HeadersInput, client?: string) =>
      rejectTooLarge(runtime, name, headers, client),
    on: <E extends IntakeEventName>(name: E, listener: IntakeListener<E>) => runtime.emitter.on(name, listener),
  });
}

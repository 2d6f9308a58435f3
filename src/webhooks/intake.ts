import { performance } from 'node:perf_hooks';
import type { Clock } from '../core/clock.js';
import {
  ClaimLost,
  InvalidOption,
  PayloadMismatch,
  PayonceError,
  RequestInProgress,
  StoreUnavailable,
} from '../core/errors.js';
import { waitBudget } from '../core/guard-options.js';
import type { ClaimContext, IdempotencyGuard } from '../core/idempotency-guard.js';
import type { ResponseInit } from '../core/response.js';
import { toStoredResponse } from '../core/response.js';
import type { HttpResponse } from '../http/http-exchange.js';
import { type Acknowledgement, type IntakeRequest, jsonAcknowledgement } from './intake-acknowledgement.js';
import { clickAcknowledgement } from './intake-click.js';
import { WebhookDecline } from './intake-decline.js';
import { IntakeEmitter, type IntakeEventName, type IntakeListener } from './intake-events.js';
import { paymeAcknowledgement } from './intake-payme.js';
import { type IntakeProblem, intakeProblem, signatureProblem } from './intake-problem.js';
import { deliveryId } from './journal/delivery-id.js';
import type { DeliveryJournal } from './journal/delivery-journal.js';
import type { DeliveryDecision, DeliveryOutcome, DeliveryRecord } from './journal/delivery-record.js';
import { createRedactor, type RedactionOptions, type Redactor } from './journal/redact.js';
import { MalformedWebhookPayload } from './providers/malformed-webhook-payload.js';
import type { ProviderEvent, ProviderProfile } from './providers/provider-event.js';
import type { HeadersInput } from './verify/headers.js';
import { headerValue } from './verify/headers.js';
import type { SignatureScheme, VerifyResult } from './verify/signature-scheme.js';

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
   * delivery timeout (see the provider's docs). See `GuardOptions.waitForInFlightMs`.
   * @default the guard's `waitForInFlightMs` (0: answer 409 at once)
   */
  readonly waitForInFlightMs?: number;
}

/** The webhook intake: the pipeline of SPEC §5 behind one framework-neutral call. */
export interface WebhookIntake {
  /** The body size limit in bytes (for adapters to configure their framework with). */
  readonly maxBodyBytes: number;
  /** The redactor used for the journal and reports (the logger of `src/observe` may share it). */
  readonly redactor: Redactor;
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
   * saw it. @throws {InvalidOption} unknown endpoint.
   */
  rejectTooLarge(endpoint: string, headers: HeadersInput): Promise<HttpResponse>;
  /** Subscribes to intake events (`delivery`, `journal-error`); returns an unsubscribe function. */
  on<E extends IntakeEventName>(name: E, listener: IntakeListener<E>): () => void;
}

interface Resolved {
  readonly endpoint: WebhookEndpoint;
  readonly ack: Acknowledgement;
  readonly fingerprint: 'raw-body' | 'none';
}

/** What the pipeline learned about one delivery, turned into a journal row at the end. */
interface Trace {
  signature: string;
  decision: DeliveryDecision;
  outcome: DeliveryOutcome;
  error: string | null;
  event: ProviderEvent | null;
  verify: VerifyResult | null;
  payload: unknown;
}

const DEFAULT_MAX_BODY_BYTES = 2_097_152;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function positiveInt(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1) throw new InvalidOption(name, 'must be a positive integer');
  return v;
}

function defaultAck(provider: string): Acknowledgement {
  if (provider === 'payme') return paymeAcknowledgement();
  if (provider === 'click') return clickAcknowledgement();
  return jsonAcknowledgement();
}

/** The body as a JSON value or form record, for the journal of a delivery whose payload was not extracted. */
function looseParse(rawBody: Uint8Array, headers: HeadersInput): unknown {
  let text: string;
  try {
    text = UTF8.decode(rawBody);
  } catch {
    return null;
  }
  try {
    return JSON.parse(text);
  } catch {
    const type = headerValue(headers, 'content-type')?.toLowerCase() ?? '';
    return type.startsWith('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(text)) : null;
  }
}

function errorText(error: unknown): string {
  if (error instanceof PayonceError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * Builds the webhook intake of SPEC §5. Per delivery, in this order: size limit (413) → signature on the raw
 * bytes (400 malformed / 401 missing, wrong or stale) → parse and extract with the provider profile (400) →
 * receipt claim on the event key (duplicate: the stored response replayed byte for byte; claim held elsewhere:
 * 409 + `Retry-After`; same key, other body: 422) → business handler → the provider's acknowledgement. A forged,
 * stale or oversized delivery is refused before any receipt is written or any handler runs. A handler that
 * throws leaves the receipt `failed` and gets a 5xx (Payme: JSON-RPC -32400), so the provider redelivers.
 * Events without a key (Payme read-only methods) run the handler every time, without a receipt. Every delivery
 * produces one redacted journal row (if a journal is configured) and one `delivery` event.
 * @throws {InvalidOption} no endpoint, a bad `maxBodyBytes`/`maxErrorChars`/`maxPayloadChars`/`waitForInFlightMs`.
 * @see SPEC §3, §5; fixtures README (provider answer formats).
 * @example
 * const intake = createWebhookIntake({ guard, journal, endpoints: {
 *   stripe: { profile: stripeProfile(), scheme: stripeScheme({ secrets: [secret] }), handler: (event) => markPaid(event) },
 * } });
 * const response = await intake.receive({ endpoint: 'stripe', rawBody, headers });
 */
export function createWebhookIntake(options: WebhookIntakeOptions): WebhookIntake {
  const { guard, journal } = options;
  const clock: Clock = guard.options.clock;
  const maxBodyBytes = positiveInt(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'maxBodyBytes');
  const maxErrorChars = positiveInt(options.maxErrorChars, 1_000, 'maxErrorChars');
  const maxPayloadChars = positiveInt(options.maxPayloadChars, 65_536, 'maxPayloadChars');
  const waitForInFlightMs =
    options.waitForInFlightMs === undefined ? undefined : waitBudget(options.waitForInFlightMs, 'waitForInFlightMs');
  const redactor: Redactor =
    options.redaction !== undefined && 'redact' in options.redaction
      ? options.redaction
      : createRedactor(options.redaction);
  const emitter = new IntakeEmitter();
  const endpoints = new Map<string, Resolved>();
  for (const [name, endpoint] of Object.entries(options.endpoints ?? {})) {
    const provider = endpoint.profile.provider;
    endpoints.set(name, {
      endpoint,
      ack: endpoint.acknowledgement ?? defaultAck(provider),
      fingerprint: endpoint.fingerprint ?? (provider === 'payme' || provider === 'click' ? 'none' : 'raw-body'),
    });
  }
  if (endpoints.size === 0) throw new InvalidOption('endpoints', 'at least one endpoint is required');

  function resolve(name: string): Resolved {
    const found = typeof name === 'string' ? endpoints.get(name) : undefined;
    if (!found) throw new InvalidOption('endpoint', 'is not a configured webhook endpoint');
    return found;
  }

  function bounded(text: string): string {
    const scrubbed = redactor.scrubText(text);
    const chars = Array.from(scrubbed);
    return chars.length <= maxErrorChars ? scrubbed : chars.slice(0, maxErrorChars).join('');
  }

  function payloadText(payload: unknown): string | null {
    if (payload === null || payload === undefined) return null;
    const text = JSON.stringify(redactor.redact(payload));
    return text.length <= maxPayloadChars ? text : `${text.slice(0, maxPayloadChars)}…[TRUNCATED]`;
  }

  async function finish(
    resolved: Resolved,
    trace: Trace,
    response: HttpResponse,
    receivedAtMs: number,
    started: number,
  ): Promise<HttpResponse> {
    const { event } = trace;
    const record: DeliveryRecord = Object.freeze({
      id: deliveryId(),
      receivedAtMs,
      provider: resolved.endpoint.profile.provider,
      eventKey: event?.key?.externalId ?? null,
      eventType: event?.eventType ?? null,
      signature: trace.signature,
      decision: trace.decision,
      outcome: trace.outcome,
      responseStatus: response.status,
      error: trace.error === null ? null : bounded(trace.error),
      durationMs: Math.max(0, Math.round(performance.now() - started)),
      objectId: event?.objectId ?? null,
      paymentId: event?.paymentId ?? null,
      merchantReference: event?.merchantReference ?? null,
      amountMinor: event?.amountMinor ?? null,
      currency: event?.currency ?? null,
      payload: payloadText(trace.payload),
    });
    if (journal) {
      try {
        await journal.record(record);
      } catch (error) {
        emitter.emit('journal-error', { record, error });
      }
    }
    emitter.emit('delivery', { record, event, verify: trace.verify });
    return response;
  }

  function refused(trace: Trace, problem: IntakeProblem, error: string): Trace {
    return { ...trace, decision: 'rejected', outcome: 'rejected', error: `${problem.code}: ${error}` };
  }

  async function receive(request: IntakeRequest): Promise<HttpResponse> {
    const started = performance.now();
    const resolved = resolve(request.endpoint);
    const { endpoint, ack } = resolved;
    const receivedAtMs = clock.now();
    const { rawBody, headers } = request;
    let trace: Trace = {
      signature: 'not_checked',
      decision: 'rejected',
      outcome: 'rejected',
      error: null,
      event: null,
      verify: null,
      payload: null,
    };
    const answer = (t: Trace, response: HttpResponse) => finish(resolved, t, response, receivedAtMs, started);
    const refuse = (problem: IntakeProblem) =>
      answer(refused(trace, problem, problem.detail), ack.problem(problem, request));

    // 1. Size limit, before anything reads the bytes.
    if (!(rawBody instanceof Uint8Array)) {
      const problem = intakeProblem('integration_error', 'RAW_BODY_REQUIRED', 'the adapter passed no raw body bytes');
      return refuse(problem);
    }
    if (rawBody.byteLength > maxBodyBytes) {
      return refuse(tooLarge(rawBody.byteLength));
    }

    // 2. Signature over the exact bytes.
    let verify: VerifyResult;
    try {
      verify = await endpoint.scheme.verify({ rawBody, headers, nowMs: receivedAtMs });
    } catch (error) {
      const code = error instanceof PayonceError ? error.code : 'INVALID_VERIFY_INPUT';
      return refuse(intakeProblem('integration_error', code, errorText(error)));
    }
    trace.verify = verify;
    if (!verify.ok) {
      trace.signature = verify.reason;
      trace.payload = looseParse(rawBody, headers);
      return refuse(signatureProblem(verify));
    }
    trace.signature = 'valid';

    // 3. Parse and extract.
    let event: ProviderEvent;
    try {
      event = endpoint.profile.extract({ rawBody, headers });
    } catch (error) {
      trace.payload = looseParse(rawBody, headers);
      if (error instanceof MalformedWebhookPayload) {
        return refuse(
          intakeProblem('malformed_payload', error.code, error.message, { field: error.path.split(' ')[0] }),
        );
      }
      const code = error instanceof PayonceError ? error.code : 'MALFORMED_WEBHOOK_PAYLOAD';
      return refuse(intakeProblem('malformed_payload', code, errorText(error)));
    }
    trace = { ...trace, event, payload: event.payload };

    // 4–6. Claim, handle, respond.
    let handlerRan = false;
    let outcome: DeliveryOutcome = 'completed';
    const handle = async (claim: ClaimContext | null): Promise<ResponseInit> => {
      handlerRan = true;
      try {
        const result = await endpoint.handler(event, { claim, headers, receivedAtMs });
        return ack.accepted(event, result);
      } catch (error) {
        if (!(error instanceof WebhookDecline)) throw error;
        outcome = 'declined';
        return ack.declined(event, error);
      }
    };
    try {
      if (event.key === null) {
        const stored = toStoredResponse(await handle(null));
        return answer({ ...trace, decision: 'new', outcome }, ack.deliver(stored, request));
      }
      const result = await guard.run(event.key, (claim) => handle(claim), {
        payload: resolved.fingerprint === 'raw-body' ? rawBody : undefined,
        waitForInFlightMs,
        signal: request.signal,
      });
      const decided: Trace = result.isReplay
        ? { ...trace, decision: 'duplicate', outcome: 'replayed' }
        : { ...trace, decision: 'new', outcome };
      return answer(decided, ack.deliver(result.response, request));
    } catch (error) {
      const problem = problemOfFailure(error);
      const failed: Trace =
        problem.kind === 'in_progress'
          ? { ...trace, decision: 'in-progress', outcome: 'deferred', error: `${problem.code}: ${problem.detail}` }
          : handlerRan
            ? { ...trace, decision: 'new', outcome: 'failed', error: errorText(error) }
            : refused(trace, problem, errorText(error));
      return answer(failed, ack.problem(problem, request));
    }
  }

  function tooLarge(bytes: number | null): IntakeProblem {
    const size = bytes === null ? 'the body' : `${bytes} bytes`;
    return intakeProblem('too_large', 'WEBHOOK_BODY_TOO_LARGE', `${size} exceeds the limit of ${maxBodyBytes} bytes`);
  }

  async function rejectTooLarge(name: string, headers: HeadersInput): Promise<HttpResponse> {
    const started = performance.now();
    const resolved = resolve(name);
    const declared = Number(headerValue(headers, 'content-length'));
    const problem = tooLarge(Number.isSafeInteger(declared) ? declared : null);
    const trace: Trace = {
      signature: 'not_checked',
      decision: 'rejected',
      outcome: 'rejected',
      error: `${problem.code}: ${problem.detail}`,
      event: null,
      verify: null,
      payload: null,
    };
    const request: IntakeRequest = { endpoint: name, rawBody: new Uint8Array(0), headers };
    return finish(resolved, trace, resolved.ack.problem(problem, request), clock.now(), started);
  }

  return Object.freeze({
    maxBodyBytes,
    redactor,
    has: (name: string) => endpoints.has(name),
    receive,
    rejectTooLarge,
    on: <E extends IntakeEventName>(name: E, listener: IntakeListener<E>) => emitter.on(name, listener),
  });
}

/** The problem for an error thrown by the claim, the handler or the store. */
function problemOfFailure(error: unknown): IntakeProblem {
  if (error instanceof RequestInProgress) {
    return intakeProblem('in_progress', error.code, 'this event is being processed by another worker', {
      retryAfterMs: error.retryAfterMs,
    });
  }
  if (error instanceof PayloadMismatch) {
    return intakeProblem('payload_mismatch', error.code, 'this event key was first received with a different body');
  }
  if (error instanceof ClaimLost) {
    return intakeProblem('claim_lost', error.code, 'the claim was taken over; the result was not recorded');
  }
  if (error instanceof StoreUnavailable) {
    return intakeProblem('store_unavailable', error.code, 'the receipt store is unavailable');
  }
  return intakeProblem('handler_failed', 'WEBHOOK_HANDLER_FAILED', 'the webhook handler failed; redeliver later');
}

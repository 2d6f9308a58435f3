import { performance } from 'node:perf_hooks';
import { cutToCodePoints } from '../core/code-points.js';
import type { HttpResponse } from '../http/http-exchange.js';
import type { IntakeRequest } from './intake-acknowledgement.js';
import { intakeProblem } from './intake-problem.js';
import type { IntakeRuntime, ResolvedEndpoint } from './intake-runtime.js';
import type { Trace } from './intake-trace.js';
import { deliveryId } from './journal/delivery-id.js';
import type { DeliveryRecord } from './journal/delivery-record.js';
import { EVENT_FIELD_LIMITS } from './providers/event-limits.js';

/** When and where one delivery arrived. */
export interface DeliveryArrival {
  readonly resolved: ResolvedEndpoint;
  /** Epoch milliseconds (the guard's clock). */
  readonly receivedAtMs: number;
  /** `performance.now()` at arrival, for `durationMs`. */
  readonly started: number;
}

/** `text` as the intake reports it: redacted with the intake's `scrubText`, cut to `maxErrorChars` code points. */
export function bounded(runtime: IntakeRuntime, text: string): string {
  return cutToCodePoints(runtime.redactor.scrubText(text), runtime.maxErrorChars);
}

function payloadText(runtime: IntakeRuntime, payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  const text = JSON.stringify(runtime.redactor.redact(payload));
  return text.length <= runtime.maxPayloadChars ? text : `${text.slice(0, runtime.maxPayloadChars)}…[TRUNCATED]`;
}

/**
 * An extracted identifier as journaled: readable, but with any card number, e-mail address, phone number or
 * secret inside it redacted (the same `scrubText` the logs use), so `/admin/api/deliveries` never serves one. The
 * intake let it in within its column's `limit` (`EVENT_FIELD_LIMITS`), but redaction can lengthen it (`a@b.cc` →
 * `[REDACTED]`): past the limit it is cut to fit, ending in `…`, so the journal row of an event it accepted can
 * always be written.
 */
function idText(runtime: IntakeRuntime, id: string | null | undefined, limit: number): string | null {
  return id === null || id === undefined ? null : cutToCodePoints(runtime.redactor.scrubText(id), limit, '…');
}

/** The redacted journal row of a delivery answered with `response`. */
export function recordOf(runtime: IntakeRuntime, arrival: DeliveryArrival, trace: Trace, response: HttpResponse) {
  const { event } = trace;
  const record: DeliveryRecord = Object.freeze({
    id: deliveryId(),
    receivedAtMs: arrival.receivedAtMs,
    provider: arrival.resolved.endpoint.profile.provider,
    eventKey: idText(runtime, event?.key?.externalId, EVENT_FIELD_LIMITS.eventId),
    eventType: event?.eventType ?? null,
    signature: trace.signature,
    decision: trace.decision,
    outcome: trace.outcome,
    responseStatus: response.status,
    error: trace.error === null ? null : bounded(runtime, trace.error),
    durationMs: Math.max(0, Math.round(performance.now() - arrival.started)),
    objectId: idText(runtime, event?.objectId, EVENT_FIELD_LIMITS.objectId),
    paymentId: idText(runtime, event?.paymentId, EVENT_FIELD_LIMITS.paymentId),
    merchantReference: idText(runtime, event?.merchantReference, EVENT_FIELD_LIMITS.merchantReference),
    amountMinor: event?.amountMinor ?? null,
    currency: event?.currency ?? null,
    payload: payloadText(runtime, trace.payload),
  });
  return record;
}

/**
 * Journals the delivery, emits `delivery`, and returns `response` — except that a delivery whose journal row
 * cannot be written is never acknowledged: a 2xx/4xx answer becomes 503 `STORE_UNAVAILABLE` (the acknowledgement's
 * rendering of it), so the provider redelivers and the redelivery (a replay of the stored answer) is journaled.
 * The failed write is reported as `journal-error`. `written`: the row was already journaled (in the delivery's
 * own transaction, by the group commit): only `delivery` is emitted.
 */
export async function recordDelivery(
  runtime: IntakeRuntime,
  arrival: DeliveryArrival,
  trace: Trace,
  response: HttpResponse,
  request: IntakeRequest,
  written?: DeliveryRecord,
): Promise<HttpResponse> {
  const record = written ?? recordOf(runtime, arrival, trace, response);
  let answer = response;
  if (runtime.journal && written === undefined) {
    try {
      await runtime.journal.record(record);
    } catch (error) {
      runtime.emitter.emit('journal-error', { record, error });
      if (response.status < 500) {
        const problem = intakeProblem('store_unavailable', 'STORE_UNAVAILABLE', 'the delivery journal is unavailable');
        answer = arrival.resolved.ack.problem(problem, request);
      }
    }
  }
  runtime.emitter.emit('delivery', { record, event: trace.event, verify: trace.verify });
  return answer;
}

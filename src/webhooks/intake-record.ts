import { performance } from 'node:perf_hooks';
import type { HttpResponse } from '../http/http-exchange.js';
import type { IntakeRuntime, ResolvedEndpoint } from './intake-runtime.js';
import type { Trace } from './intake-trace.js';
import { deliveryId } from './journal/delivery-id.js';
import type { DeliveryRecord } from './journal/delivery-record.js';

/** When and where one delivery arrived. */
export interface DeliveryArrival {
  readonly resolved: ResolvedEndpoint;
  /** Epoch milliseconds (the guard's clock). */
  readonly receivedAtMs: number;
  /** `performance.now()` at arrival, for `durationMs`. */
  readonly started: number;
}

function bounded(runtime: IntakeRuntime, text: string): string {
  const scrubbed = runtime.redactor.scrubText(text);
  const chars = Array.from(scrubbed);
  return chars.length <= runtime.maxErrorChars ? scrubbed : chars.slice(0, runtime.maxErrorChars).join('');
}

function payloadText(runtime: IntakeRuntime, payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  const text = JSON.stringify(runtime.redactor.redact(payload));
  return text.length <= runtime.maxPayloadChars ? text : `${text.slice(0, runtime.maxPayloadChars)}…[TRUNCATED]`;
}

/** The redacted journal row of a delivery answered with `response`. */
function recordOf(runtime: IntakeRuntime, arrival: DeliveryArrival, trace: Trace, response: HttpResponse) {
  const { event } = trace;
  const record: DeliveryRecord = Object.freeze({
    id: deliveryId(),
    receivedAtMs: arrival.receivedAtMs,
    provider: arrival.resolved.endpoint.profile.provider,
    eventKey: event?.key?.externalId ?? null,
    eventType: event?.eventType ?? null,
    signature: trace.signature,
    decision: trace.decision,
    outcome: trace.outcome,
    responseStatus: response.status,
    error: trace.error === null ? null : bounded(runtime, trace.error),
    durationMs: Math.max(0, Math.round(performance.now() - arrival.started)),
    objectId: event?.objectId ?? null,
    paymentId: event?.paymentId ?? null,
    merchantReference: event?.merchantReference ?? null,
    amountMinor: event?.amountMinor ?? null,
    currency: event?.currency ?? null,
    payload: payloadText(runtime, trace.payload),
  });
  return record;
}

/**
 * Journals the delivery (a failed journal write is reported as `journal-error`), emits `delivery`, and returns
 * `response` unchanged.
 */
export async function recordDelivery(
  runtime: IntakeRuntime,
  arrival: DeliveryArrival,
  trace: Trace,
  response: HttpResponse,
): Promise<HttpResponse> {
  const record = recordOf(runtime, arrival, trace, response);
  if (runtime.journal) {
    try {
      await runtime.journal.record(record);
    } catch (error) {
      runtime.emitter.emit('journal-error', { record, error });
    }
  }
  runtime.emitter.emit('delivery', { record, event: trace.event, verify: trace.verify });
  return response;
}

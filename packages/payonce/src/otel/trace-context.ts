import type { Context, Link, SpanContext } from '@opentelemetry/api';
import { otelApi } from './otel-api.js';

/**
 * A W3C Trace Context carrier: the `traceparent` and `tracestate` header values (W3C Trace Context Level 1,
 * https://www.w3.org/TR/trace-context/). payonce writes them as message headers and stores them, as JSON, with an
 * outbox job and a payment attempt.
 */
export interface TraceCarrier {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** `version-traceid-parentid-flags`, lower-case hex (W3C Trace Context §3.2). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** The longest `tracestate` kept (W3C Trace Context §3.3: 32 members; vendors may cut at 512 characters). */
const MAX_TRACESTATE = 512;

/** The carrier of `spanContext`, or `null` for an invalid (all-zero) one. */
export function carrierOf(spanContext: SpanContext): TraceCarrier | null {
  const { traceId, spanId, traceFlags, traceState } = spanContext;
  if (!TRACEPARENT.test(`00-${traceId}-${spanId}-00`) || traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  const traceparent = `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const tracestate = traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** The span context a carrier names (remote), or `null` for a missing or malformed `traceparent`. */
export function spanContextOf(carrier: Partial<TraceCarrier> | null | undefined): SpanContext | null {
  const api = otelApi();
  const match = typeof carrier?.traceparent === 'string' ? TRACEPARENT.exec(carrier.traceparent) : null;
  if (api === null || match === null) return null;
  const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
  if (version === 'ff' || traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  const state = carrier?.tracestate;
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & 0xff,
    isRemote: true,
    ...(typeof state === 'string' && state !== '' && state.length <= MAX_TRACESTATE
      ? { traceState: api.createTraceState(state) }
      : {}),
  };
}

/** The carrier of the span active in `context` (default: the current one), or `null` when there is none. */
export function activeCarrier(context?: Context): TraceCarrier | null {
  const api = otelApi();
  if (api === null) return null;
  const span = api.trace.getSpan(context ?? api.context.active());
  return span === undefined ? null : carrierOf(span.spanContext());
}

/** A carrier as the JSON text payonce stores (`trace_context` columns). */
export function storedCarrier(carrier: TraceCarrier | null): string | null {
  return carrier === null ? null : JSON.stringify(carrier);
}

/** The stored JSON text of a `trace_context` column as a carrier; `null` for NULL or text that is not one. */
export function carrierOfStored(text: string | null | undefined): TraceCarrier | null {
  if (typeof text !== 'string' || text === '') return null;
  try {
    const parsed = JSON.parse(text) as Partial<TraceCarrier> | null;
    return spanContextOf(parsed) === null ? null : (parsed as TraceCarrier);
  } catch {
    return null;
  }
}

/** The trace context of the active span as stored JSON text, or `null` (no SDK, no active span). */
export function activeTraceContext(): string | null {
  return storedCarrier(activeCarrier());
}

/** A span link to the span a carrier (or its stored JSON) names, or `null` when it names none. */
export function linkTo(carrier: TraceCarrier | string | null | undefined): Link | null {
  const parsed = typeof carrier === 'string' ? carrierOfStored(carrier) : (carrier ?? null);
  const context = spanContextOf(parsed);
  return context === null ? null : { context };
}

/** A context whose parent span is the one `carrier` names (the root context when it names none). */
export function contextOfCarrier(carrier: TraceCarrier | string | null | undefined): Context | undefined {
  const api = otelApi();
  if (api === null) return undefined;
  const parsed = typeof carrier === 'string' ? carrierOfStored(carrier) : (carrier ?? null);
  const spanContext = spanContextOf(parsed);
  return spanContext === null ? api.ROOT_CONTEXT : api.trace.setSpanContext(api.ROOT_CONTEXT, spanContext);
}

import type { Attributes, AttributeValue, Context, Link, Span } from '@opentelemetry/api';
import { otelApi } from './otel-api.js';
import { activeCarrier, carrierOf, contextOfCarrier, linkTo, type TraceCarrier } from './trace-context.js';
import { activeTracer } from './tracing.js';

/** A span's kind, as OpenTelemetry's `SpanKind` names it. */
export type SpanKindName = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

/** How `inSpan` starts a span. */
export interface SpanSpec {
  readonly kind?: SpanKindName;
  readonly attributes?: Attributes;
  /** Stored trace contexts (or carriers) the span links to; `null`s are skipped. */
  readonly links?: readonly (TraceCarrier | string | null | undefined)[];
  /**
   * The parent, instead of the active span: a stored trace context or carrier (a remote parent), or `'root'` for a
   * new trace. `undefined`: the active span.
   */
  readonly parent?: TraceCarrier | string | 'root' | null;
  /** When the span started, epoch ms (for work timed before the span could be started). @default now */
  readonly startTimeMs?: number;
}

/** The running span as payonce's code sees it; every method is a no-op when no SDK is registered. */
export interface SpanScope {
  /** False when nothing is recorded (no SDK, or the span was not sampled): skip building attributes. */
  readonly recording: boolean;
  /** Sets one attribute. */
  set(name: string, value: AttributeValue | null | undefined): void;
  /** Links this span to the span a stored trace context names (nothing for `null`). */
  link(traceContext: TraceCarrier | string | null | undefined): void;
  /** Marks the span failed with `message` (for an outcome that is an error but is not thrown). */
  fail(message: string): void;
  /** Adds the event `name` at this moment (a step inside the span that needs no span of its own). */
  event(name: string, attributes?: Attributes): void;
  /** This span's own carrier (to store or send), or `null` when nothing is recorded. */
  carrier(): TraceCarrier | null;
}

/** The scope of a call with no SDK: one frozen object, nothing allocated per call. */
export const NO_SPAN: SpanScope = Object.freeze({
  recording: false,
  set: () => {},
  link: () => {},
  fail: () => {},
  event: () => {},
  carrier: () => null,
});

const KINDS: Readonly<Record<SpanKindName, number>> = Object.freeze({
  internal: 0,
  server: 1,
  client: 2,
  producer: 3,
  consumer: 4,
});

class RecordingScope implements SpanScope {
  readonly recording: boolean;
  private readonly span: Span;
  constructor(span: Span) {
    this.span = span;
    this.recording = span.isRecording();
  }
  set(name: string, value: AttributeValue | null | undefined): void {
    if (value !== null && value !== undefined) this.span.setAttribute(name, value);
  }
  link(traceContext: TraceCarrier | string | null | undefined): void {
    const link = linkTo(traceContext);
    if (link !== null) this.span.addLink(link);
  }
  fail(message: string): void {
    this.span.setStatus({ code: 2, message });
  }
  event(name: string, attributes?: Attributes): void {
    this.span.addEvent(name, attributes);
  }
  carrier(): TraceCarrier | null {
    return carrierOf(this.span.spanContext());
  }
}

function linksOf(spec: SpanSpec): Link[] | undefined {
  if (spec.links === undefined) return undefined;
  const links = spec.links.map(linkTo).filter((link): link is Link => link !== null);
  return links.length === 0 ? undefined : links;
}

function parentOf(spec: SpanSpec): Context | undefined {
  const api = otelApi();
  if (api === null || spec.parent === undefined) return undefined;
  if (spec.parent === 'root' || spec.parent === null) return api.ROOT_CONTEXT;
  return contextOfCarrier(spec.parent);
}

/** Records `error` on `span` as an exception and sets the span's status to error. */
function recordFailure(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: 2, message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
}

/**
 * Runs `fn` inside a new span `name` (the active span while `fn` runs, so spans `fn` starts are its children) and
 * ends it when `fn` settles: a throw records the exception, sets the status to error and is rethrown. Without a
 * registered SDK this is `fn(NO_SPAN)`: no span, no attribute, no context switch.
 */
export async function inSpan<T>(
  name: string,
  spec: SpanSpec | undefined,
  fn: (scope: SpanScope) => Promise<T>,
): Promise<T> {
  const tracer = activeTracer();
  if (tracer === undefined) return await fn(NO_SPAN);
  const api = otelApi()!;
  const options = {
    kind: KINDS[spec?.kind ?? 'internal'],
    ...(spec?.startTimeMs === undefined ? {} : { startTime: spec.startTimeMs }),
    ...(spec?.attributes === undefined ? {} : { attributes: spec.attributes }),
    ...(spec === undefined ? {} : { links: linksOf(spec) }),
  };
  const parent = (spec === undefined ? undefined : parentOf(spec)) ?? api.context.active();
  const span = tracer.startSpan(name, options, parent);
  const scope = new RecordingScope(span);
  try {
    return await api.context.with(api.trace.setSpan(parent, span), () => fn(scope));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs `fn` inside a new child span `name` of the active span that `fn` does not make active: for a step that starts
 * no span of its own (the guard's in-flight wait and takeover), it saves the context switch of `inSpan`. A throw records
 * the exception, sets the status to error and is rethrown. Without a registered SDK this is `fn(NO_SPAN)`.
 */
export async function inLeafSpan<T>(name: string, fn: (scope: SpanScope) => Promise<T>): Promise<T> {
  const tracer = activeTracer();
  if (tracer === undefined) return await fn(NO_SPAN);
  const span = tracer.startSpan(name);
  try {
    return await fn(new RecordingScope(span));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Records a finished child of the active span, `name`, from `startMs` to `endMs` (epoch ms): for a step timed
 * before its parent span could start (the claim of an outbox job, whose trace context is read after the claim).
 */
export function recordPastSpan(name: string, startMs: number, endMs: number, attributes?: Attributes): void {
  const tracer = activeTracer();
  if (tracer === undefined) return;
  const span = tracer.startSpan(name, { startTime: startMs, ...(attributes ? { attributes } : {}) });
  span.end(endMs);
}

/** The active span's scope (to add attributes to a span payonce did not start), or `NO_SPAN`. */
export function activeScope(): SpanScope {
  const api = otelApi();
  if (api === null || activeTracer() === undefined) return NO_SPAN;
  const span = api.trace.getSpan(api.context.active());
  return span === undefined ? NO_SPAN : new RecordingScope(span);
}

/** The active span's carrier when an SDK is registered, else `null`. */
export function activeCarrierIfTracing(): TraceCarrier | null {
  return activeTracer() === undefined ? null : activeCarrier();
}

import type { Tracer, TracerProvider } from '@opentelemetry/api';
import { otelApi } from './otel-api.js';

/** The instrumentation scope of every payonce span and instrument. */
export const SCOPE_NAME = 'payonce';

/** The tracer provider with no SDK behind it (the API's no-op), found once; `null` without the API. */
let noopProvider: TracerProvider | null | undefined;
/** The real (delegate) provider the cached tracer belongs to. */
let tracerOf: TracerProvider | undefined;
let cachedTracer: Tracer | undefined;

/** The provider spans would go to: the global proxy's delegate (the API's no-op until an SDK registers). */
function currentProvider(): TracerProvider | null {
  const api = otelApi();
  if (api === null) return null;
  const provider = api.trace.getTracerProvider();
  return provider instanceof api.ProxyTracerProvider ? provider.getDelegate() : provider;
}

function noop(): TracerProvider | null {
  if (noopProvider === undefined) {
    const api = otelApi();
    noopProvider = api === null ? null : new api.ProxyTracerProvider().getDelegate();
  }
  return noopProvider;
}

/**
 * The payonce tracer when an SDK tracer provider is registered globally, else `undefined`: without an SDK (or
 * without `@opentelemetry/api`) payonce builds no span, no attribute and no link. Checked on every call, so an SDK
 * registered after payonce loaded is picked up; the tracer is cached per provider.
 */
export function activeTracer(): Tracer | undefined {
  const provider = currentProvider();
  if (provider === null || provider === noop()) return undefined;
  if (provider !== tracerOf || cachedTracer === undefined) {
    tracerOf = provider;
    cachedTracer = provider.getTracer(SCOPE_NAME);
  }
  return cachedTracer;
}

/**
 * True when the calling context holds a span (sampled or not): the call is part of a trace. False without
 * `@opentelemetry/api` or outside any trace. Used by `requireParentSpan` (`GuardOptions`).
 */
export function insideTrace(): boolean {
  const api = otelApi();
  return api !== null && api.trace.getSpan(api.context.active()) !== undefined;
}

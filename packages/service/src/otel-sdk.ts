import { readFileSync } from 'node:fs';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { InvalidOption } from 'payonce/internal/core/errors.js';

/** `service.name` of every span and metric the reference service exports. */
export const OTEL_SERVICE_NAME = 'payonce-service';

/** Interval of the OTLP metric export, ms (the SDK's default; `shutdown` exports once more). */
const METRIC_EXPORT_EVERY_MS = 60_000;

/** A registered OpenTelemetry SDK: the global tracer and meter providers export to an OTLP/HTTP endpoint. */
export interface OtelSdk {
  /** The OTLP/HTTP endpoint the spans go to (`<base>/v1/traces`). */
  readonly tracesUrl: string;
  /** The OTLP/HTTP endpoint the metrics go to (`<base>/v1/metrics`). */
  readonly metricsUrl: string;
  /**
   * Exports what is still buffered (spans and one last metric collection), shuts the providers down and removes
   * the global registrations. Idempotent; export failures are swallowed (a collector that is down must not keep
   * the process from stopping).
   */
  shutdown(): Promise<void>;
}

/** The version in @payonce/service's package.json (`service.version`). */
function serviceVersion(): string {
  const json: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const version = json !== null && typeof json === 'object' ? (json as { version?: unknown }).version : undefined;
  return typeof version === 'string' ? version : 'unknown';
}

/** `<base>/v1/<signal>`: the OTLP/HTTP path of `signal` under the endpoint `base` (OTLP spec "OTLP/HTTP Request"). */
export function otlpSignalUrl(base: string, signal: 'traces' | 'metrics'): string {
  return `${base.replace(/\/+$/, '')}/v1/${signal}`;
}

/**
 * Registers the OpenTelemetry SDK of the reference service as the process-wide providers of `@opentelemetry/api`:
 * a tracer provider with a `BatchSpanProcessor` and the OTLP/HTTP (JSON) trace exporter to `<baseUrl>/v1/traces`,
 * a meter provider whose periodic reader (every 60 s, and at shutdown) exports to `<baseUrl>/v1/metrics`, an
 * `AsyncLocalStorage` context manager and the W3C `traceparent` propagator. Resource: `service.name`
 * `payonce-service`, `service.version` (this package's version). Spans of the library (`payonce`) and of the
 * service's HTTP server then go to the collector. Loaded only when `--otel` is given (`createService` imports this
 * module lazily), so a service without it registers and loads nothing of the SDK.
 * @param baseUrl the OTLP/HTTP endpoint, e.g. `http://otel-collector:4318` (checked by `resolveServiceConfig`).
 * @throws {InvalidOption} (`otelUrl`) the process already registered an OpenTelemetry SDK (a tracer or meter
 *   provider, context manager or propagator) through `@opentelemetry/api`: nothing of this one stays registered.
 * @see https://opentelemetry.io/docs/specs/otlp/#otlphttp; docs/service.md "OpenTelemetry".
 */
export function startOtelSdk(baseUrl: string): OtelSdk {
  const resource = resourceFromAttributes({
    'service.name': OTEL_SERVICE_NAME,
    'service.version': serviceVersion(),
  });
  const tracesUrl = otlpSignalUrl(baseUrl, 'traces');
  const metricsUrl = otlpSignalUrl(baseUrl, 'metrics');
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl }))],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: metricsUrl }),
        exportIntervalMillis: METRIC_EXPORT_EVERY_MS,
      }),
    ],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const registered = [
    context.setGlobalContextManager(contextManager),
    propagation.setGlobalPropagator(new W3CTraceContextPropagator()),
    trace.setGlobalTracerProvider(tracerProvider),
    metrics.setGlobalMeterProvider(meterProvider),
  ];
  if (registered.includes(false)) {
    // The API keeps what was registered first: this SDK would export nothing. Undo the parts that did register.
    if (registered[0]) context.disable();
    if (registered[1]) propagation.disable();
    if (registered[2]) trace.disable();
    if (registered[3]) metrics.disable();
    void tracerProvider.shutdown().catch(() => {});
    void meterProvider.shutdown().catch(() => {});
    throw new InvalidOption(
      'otelUrl',
      'another OpenTelemetry SDK is already registered in this process (leave otelUrl unset to use that one)',
    );
  }
  let stopping: Promise<void> | null = null;
  const shutdown = () => {
    stopping ??= (async () => {
      await tracerProvider.forceFlush().catch(() => {});
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    })();
    return stopping;
  };
  return Object.freeze({ tracesUrl, metricsUrl, shutdown });
}

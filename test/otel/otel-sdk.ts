import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** The OpenTelemetry SDK a test registers globally, with in-memory exporters. */
export interface TestSdk {
  readonly spans: InMemorySpanExporter;
  /** Every finished span named `name`. */
  named(name: string): ReadableSpan[];
  /** The data points of metric `name` after a collection, as `{ attributes, value }` (sums and histogram counts). */
  points(name: string): Promise<{ attributes: Record<string, unknown>; value: number }[]>;
  /** Unregisters everything (call in afterAll / afterEach). */
  shutdown(): Promise<void>;
}

/** Registers a tracer provider, a meter provider, the async-hooks context manager and the W3C propagator. */
export function registerTestSdk(): TestSdk {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    spans,
    named: (name) => spans.getFinishedSpans().filter((span) => span.name === name),
    async points(name) {
      exporter.reset();
      await reader.forceFlush();
      const found: { attributes: Record<string, unknown>; value: number }[] = [];
      for (const resource of exporter.getMetrics()) {
        for (const scope of resource.scopeMetrics) {
          for (const metric of scope.metrics) {
            if (metric.descriptor.name !== name) continue;
            for (const point of metric.dataPoints) {
              const value = point.value as number | { count: number };
              found.push({
                attributes: { ...point.attributes },
                value: typeof value === 'number' ? value : value.count,
              });
            }
          }
        }
      }
      return found;
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      context.disable();
      propagation.disable();
    },
  };
}

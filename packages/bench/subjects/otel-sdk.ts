/**
 * The OpenTelemetry SDK a side of the `otel-guard-sdk-vs-none-*` rows registers before it opens its subject: what
 * an application with tracing on runs, minus the network. A tracer provider with a `BatchSpanProcessor` (the
 * processor a deployment uses: spans are queued and handed over in batches) whose exporter drops every batch, a
 * meter provider whose periodic reader (60 s, the SDK's default) hands its collections to an exporter that drops
 * them, the `AsyncLocalStorage` context manager and the W3C propagator, all registered as the globals of
 * `@opentelemetry/api` (which payonce's spans and metrics use). Every span is sampled (the SDK default).
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { type ExportResult, ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

/** Counts what reached the exporters (a side's notes show it, so a row that exported nothing is visible). */
export interface DroppedCounts {
  spans: number;
  metricExports: number;
}

/** A span exporter that drops every batch (counting its spans). */
class DroppingSpanExporter implements SpanExporter {
  constructor(private readonly counts: DroppedCounts) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.counts.spans += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  }
  async shutdown(): Promise<void> {}
}

/** A metric exporter that drops every collection. */
class DroppingMetricExporter implements PushMetricExporter {
  constructor(private readonly counts: DroppedCounts) {}
  export(_metrics: unknown, done: (result: ExportResult) => void): void {
    this.counts.metricExports++;
    done({ code: ExportResultCode.SUCCESS });
  }
  selectAggregationTemporality(): AggregationTemporality {
    return AggregationTemporality.CUMULATIVE;
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/**
 * Registers the dropping SDK as the process's global providers and returns what reached its exporters so far
 * (the batch processor hands spans over every 5 s or 512 spans) and a `shutdown` that flushes and stops it.
 */
export function registerDroppingOtelSdk(): { readonly counts: DroppedCounts; shutdown(): Promise<void> } {
  const counts: DroppedCounts = { spans: 0, metricExports: 0 };
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(new DroppingSpanExporter(counts))],
  });
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: new DroppingMetricExporter(counts) })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    counts,
    shutdown: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

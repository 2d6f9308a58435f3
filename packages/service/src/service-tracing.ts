import type { FastifyInstance } from 'fastify';
import { importWithPeers } from 'payonce/internal/core/import-peer.js';
import type { OtelSdk } from './otel-sdk.js';

/** What `--otel` adds to a service process: the registered SDK and the pieces that use it. */
export interface ServiceTracing {
  /** The registered SDK (its OTLP endpoints; `shutdown` flushes it). */
  readonly sdk: OtelSdk;
  /** Adds the HTTP server spans to `app` (`registerOtelHttpSpans`). */
  registerHttpSpans(app: FastifyInstance): void;
  /** The trace id of the active sampled span, or `null` (`activeTraceId`). */
  activeTraceId(): string | null;
}

/**
 * Loads the OpenTelemetry SDK modules (only now: a service without `otelUrl` never loads them), registers the SDK
 * (`startOtelSdk`) exporting to `otelUrl` and returns what the service uses of it.
 * @throws {MissingPeer} an `@opentelemetry/*` package of @payonce/service is not installed (a broken install).
 * @throws {InvalidOption} (`otelUrl`) another OpenTelemetry SDK is already registered in the process.
 */
export async function openServiceTracing(otelUrl: string): Promise<ServiceTracing> {
  const [{ startOtelSdk }, { registerOtelHttpSpans, activeTraceId }] = await importWithPeers(
    'payonce serve --otel',
    () => Promise.all([import('./otel-sdk.js'), import('./otel-http-spans.js')]),
  );
  return Object.freeze({ sdk: startOtelSdk(otelUrl), registerHttpSpans: registerOtelHttpSpans, activeTraceId });
}

import { describe, expect, it } from 'vitest';
import { CliUsageError } from '../../../packages/cli/src/cli-usage-error.js';
import { otelUrlOf } from '../../../packages/cli/src/commands/serve.js';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { traceLinkOf } from '../../../packages/service/src/order-trace.js';
import { otlpSignalUrl } from '../../../packages/service/src/otel-sdk.js';
import { resolveServiceConfig } from '../../../packages/service/src/service-config.js';

describe('OpenTelemetry settings of payonce serve (docs/service.md "OpenTelemetry")', () => {
  it('takes --otel (or PAYONCE_OTEL_URL, through the flag) over OTEL_EXPORTER_OTLP_ENDPOINT; none of them: no SDK', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.invalid:4318' };
    expect(otelUrlOf('http://flag.invalid:4318', env)).toBe('http://flag.invalid:4318');
    expect(otelUrlOf(undefined, env)).toBe('http://collector.invalid:4318');
    expect(otelUrlOf('  ', env)).toBe('http://collector.invalid:4318');
    expect(otelUrlOf(undefined, {})).toBeNull();
    expect(otelUrlOf(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeNull();
  });

  it('refuses an endpoint that is not http(s), naming where it came from', () => {
    expect(() => otelUrlOf('grpc://collector.invalid:4317', {})).toThrow(CliUsageError);
    expect(() => otelUrlOf('not a url', {})).toThrow(/--otel \(or PAYONCE_OTEL_URL\)/);
    expect(() => otelUrlOf(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });

  it('checks otelUrl and otelTraceUrl once, with InvalidOption', () => {
    const config = resolveServiceConfig({
      otelUrl: 'http://collector.invalid:4318/',
      otelTraceUrl: 'https://jaeger.invalid/trace/{traceId}',
    });
    expect(config.otelUrl).toBe('http://collector.invalid:4318/');
    expect(config.otelTraceUrl).toBe('https://jaeger.invalid/trace/{traceId}');
    expect(resolveServiceConfig({}).otelUrl).toBeNull();
    expect(resolveServiceConfig({}).otelTraceUrl).toBeNull();
    expect(() => resolveServiceConfig({ otelUrl: 'ftp://collector.invalid' })).toThrow(InvalidOption);
    expect(() => resolveServiceConfig({ otelTraceUrl: 'https://jaeger.invalid/trace/' })).toThrow(/\{traceId\}/);
    expect(() => resolveServiceConfig({ otelTraceUrl: 'javascript:alert({traceId})' })).toThrow(InvalidOption);
  });

  it('builds the OTLP/HTTP signal URLs and the viewer link', () => {
    expect(otlpSignalUrl('http://collector.invalid:4318/', 'traces')).toBe('http://collector.invalid:4318/v1/traces');
    expect(otlpSignalUrl('http://collector.invalid:4318', 'metrics')).toBe('http://collector.invalid:4318/v1/metrics');
    const id = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(traceLinkOf('http://jaeger.invalid:16686/trace/{traceId}', id)).toBe(
      `http://jaeger.invalid:16686/trace/${id}`,
    );
    expect(traceLinkOf(null, id)).toBeNull();
  });
});

import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { BenchBackend } from '../lib/namespaces.js';
import type { Deliverer, Subject } from '../lib/subject.js';
import { registerDroppingOtelSdk } from './otel-sdk.js';
import { payonceSubject } from './payonce.js';

/**
 * `<backend>/payonce-otel`: the `<backend>/payonce` row (`guard.run`, same store, same options) in a process that
 * registered the OpenTelemetry SDK first (`registerDroppingOtelSdk`: batch span processor, meter provider, context
 * manager), so every span and metric payonce emits is created, recorded and handed to an exporter. The calls run
 * outside any trace, as a worker's own `guard.run` would: by default (`requireParentSpan`) the guard starts no span
 * there and records its metrics.
 * `<backend>/payonce-otel-traced` (`inTrace`): every call runs inside one sampled parent span the side keeps active
 * (as under an HTTP server's request span), so each call records its `payonce.guard` span; the side also pays the
 * context manager's switch per call and the promise hooks it turns on, as an application with tracing does.
 * Notes say how many spans reached the exporter by the end of the timed run (0 for a traced row would mean payonce
 * emitted none).
 */
export function payonceOtelSubject(backend: BenchBackend, inTrace = false): Subject {
  const sdk = registerDroppingOtelSdk();
  const plain = payonceSubject(backend);
  const parent = inTrace ? trace.getTracer('bench').startSpan('bench.request') : undefined;
  const traceContext = parent === undefined ? undefined : trace.setSpan(ROOT_CONTEXT, parent);
  return {
    ...plain,
    id: `${backend}/payonce-otel${inTrace ? '-traced' : ''}`,
    label: inTrace
      ? 'payonce guard.run inside a sampled trace, OpenTelemetry SDK registered (spans and metrics dropped at export)'
      : 'payonce guard.run outside any trace, OpenTelemetry SDK registered (metrics dropped at export)',
    async open(ns, counter): Promise<Deliverer> {
      const inner = await plain.open(ns, counter);
      return {
        deliver:
          traceContext === undefined
            ? (id) => inner.deliver(id)
            : (id) => context.with(traceContext, () => inner.deliver(id)),
        close: async () => {
          await inner.close();
          parent?.end();
          await sdk.shutdown();
        },
        notes: () => ({
          ...(inner.notes?.() ?? {}),
          spansExported: sdk.counts.spans,
          metricExports: sdk.counts.metricExports,
        }),
      };
    },
  };
}

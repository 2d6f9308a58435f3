import type { BenchBackend } from '../lib/namespaces.js';
import type { Deliverer, Subject } from '../lib/subject.js';
import { registerDroppingOtelSdk } from './otel-sdk.js';
import { payonceSubject } from './payonce.js';

/**
 * `<backend>/payonce-otel`: the `<backend>/payonce` row (`guard.run`, same store, same options) in a process that
 * registered the OpenTelemetry SDK first (`registerDroppingOtelSdk`: batch span processor, meter provider, context
 * manager), so every span and metric payonce emits is created, recorded and handed to an exporter. Its notes say
 * how many spans reached the exporter by the end of the timed run (0 would mean payonce emitted none).
 */
export function payonceOtelSubject(backend: BenchBackend): Subject {
  const sdk = registerDroppingOtelSdk();
  const plain = payonceSubject(backend);
  return {
    ...plain,
    id: `${backend}/payonce-otel`,
    label: 'payonce guard.run with an OpenTelemetry SDK registered (spans and metrics dropped at export)',
    async open(ns, counter): Promise<Deliverer> {
      const inner = await plain.open(ns, counter);
      return {
        deliver: (id) => inner.deliver(id),
        close: async () => {
          await inner.close();
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

import type { RequestKey } from '../core/request-key.js';
import type { Store } from '../core/store.js';
import type { SpanScope } from '../otel/span-scope.js';
import { carrierOfStored, storedCarrier } from '../otel/trace-context.js';

/**
 * Ties the deliveries of one event together across traces (a redelivery is the provider's new request, so it starts
 * a trace of its own): when the store holds the trace context of the event's first delivery, the delivery's span
 * (`payonce.webhook.intake`) **links** to it; when it holds none and this delivery ran the handler, this span's
 * trace context is stored as the first (`Store.recordReceiptTrace`). Nothing when the span is not recorded (no SDK)
 * or the store keeps no trace contexts; a store error here is telemetry's and never fails the delivery.
 * @see docs/observability.md "Propagation across hops".
 */
export async function linkToFirstDelivery(
  store: Store,
  key: RequestKey,
  span: SpanScope,
  ranHandler: boolean,
): Promise<void> {
  if (!span.recording || store.receiptTraceOf === undefined || store.recordReceiptTrace === undefined) return;
  const own = span.carrier();
  try {
    const first = carrierOfStored(await store.receiptTraceOf(key));
    if (first !== null) {
      if (first.traceparent !== own?.traceparent) span.link(first);
      return;
    }
    const text = storedCarrier(own);
    if (ranHandler && text !== null) await store.recordReceiptTrace(key, text);
  } catch {
    // telemetry only: a store that cannot answer (not migrated to 0018, down) leaves the span without its link
  }
}

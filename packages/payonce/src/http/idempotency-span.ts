import { inSpan } from '../otel/span-scope.js';

/** What the span reads of an `IdempotencyResult`. */
interface Decided {
  readonly kind: string;
  readonly response: { readonly status: number };
  readonly code?: string;
}

/**
 * Runs `decide` (the `Idempotency-Key` core's decision on one request) in the span `payonce.http.idempotency`, with
 * the HTTP semantic-convention attributes `http.request.method`, `http.route`, `http.response.status_code` and
 * `payonce.http.result` (`executed`, `replayed`, `rejected`). Called only with an OpenTelemetry SDK registered.
 * @see docs/observability.md "Spans".
 */
export function inIdempotencySpan<R extends Decided>(
  method: string,
  route: string,
  decide: () => Promise<R>,
): Promise<R> {
  const attributes = { 'http.request.method': method, 'http.route': route };
  return inSpan('payonce.http.idempotency', { attributes }, async (span) => {
    const result = await decide();
    span.set('payonce.http.result', result.kind);
    span.set('http.response.status_code', result.response.status);
    span.set('payonce.error.code', result.code);
    return result;
  });
}

import type { Attributes } from '@opentelemetry/api';
import { PAYONCE_ATTRIBUTES as A } from '../otel/attributes.js';
import { activeScope, inSpan, type SpanKindName, type SpanScope } from '../otel/span-scope.js';
import { activeTracer } from '../otel/tracing.js';

/** What a provider engine's span says about one call besides its name. */
export interface ProviderSpanSpec<T> {
  /** The engine (`payme`, `click`, `uzum`, `telegram`): `payonce.receipt.provider`. */
  readonly provider: string;
  /** The method or operation (`CreateTransaction`, `Prepare`, `confirm`, `answerPreCheckoutQuery`), or `null` when unknown. */
  readonly method: string | null;
  /** `server` for a call the provider makes to the merchant, `client` for one the engine makes, `internal` else. */
  readonly kind: SpanKindName;
  /** Convention attributes known before the call (`rpc.*`, `http.*`, `server.*`). */
  readonly attributes?: () => Attributes;
  /** Sets the attributes of the answer (state, error code) on the span once the call returned. */
  readonly describe: (result: T, scope: SpanScope) => void;
}

/**
 * Runs one provider call (an engine answering a provider, or calling its API) in a span named `<provider> <method>`
 * (`<provider>` alone when the method is unknown: names stay low-cardinality). Without a registered SDK this is
 * `call()` itself: no span, no attribute built, no extra async step.
 * @see docs/observability.md "Spans" (provider engines).
 */
export function inProviderSpan<T>(spec: ProviderSpanSpec<T>, call: () => Promise<T>): Promise<T> {
  if (activeTracer() === undefined) return call();
  const attributes: Attributes = {
    ...spec.attributes?.(),
    [A.provider]: spec.provider,
    ...(spec.method === null ? {} : { [A.method]: spec.method }),
  };
  const name = spec.method === null ? spec.provider : `${spec.provider} ${spec.method}`;
  return inSpan(name, { kind: spec.kind, attributes }, async (scope) => {
    const result = await call();
    if (scope.recording) spec.describe(result, scope);
    return result;
  });
}

/** The transaction a provider call concerns, as its span reports it. */
export interface ProviderTransactionFacts {
  /** The provider's own id of the transaction or charge. */
  readonly providerTransactionId?: string | number | null;
  /** The order it pays. */
  readonly orderId?: string | null;
}

/**
 * Adds the order and the provider's transaction id to the span active now (the engine's call span, when the engine
 * reads or writes the transaction's row); nothing without an SDK or a recording span.
 */
export function noteProviderTransaction(facts: ProviderTransactionFacts): void {
  const scope = activeScope();
  if (!scope.recording) return;
  const id = facts.providerTransactionId;
  scope.set(A.providerTransactionId, id === null || id === undefined ? undefined : String(id));
  scope.set(A.orderId, facts.orderId);
}

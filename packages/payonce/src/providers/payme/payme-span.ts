import { PAYONCE_ATTRIBUTES as A } from '../../otel/attributes.js';
import type { ProviderSpanSpec } from '../provider-span.js';
import { PAYME_ERROR_CODES } from './payme-errors.js';
import type { PaymeOutcome } from './payme-outcome.js';
import type { PaymeMethod } from './payme-request.js';

/**
 * The span of one Merchant API call: `payme <method>` (`payme` for a body with no known method), kind server, with
 * OpenTelemetry's JSON-RPC attributes (`rpc.system` = `jsonrpc`, `rpc.method`, `rpc.jsonrpc.version`,
 * `rpc.jsonrpc.error_code`) and `payonce.provider.state` (the `state` answered) or `payonce.provider.error_code`.
 * Only a -32400 (system error: nothing committed) marks the span failed; the protocol's refusals are answers.
 * @see docs/observability.md "Spans"; https://opentelemetry.io/docs/specs/semconv/rpc/json-rpc/
 */
export function paymeSpan(method: PaymeMethod | null): ProviderSpanSpec<PaymeOutcome> {
  return {
    provider: 'payme',
    method,
    kind: 'server',
    attributes: () => ({
      'rpc.system': 'jsonrpc',
      'rpc.jsonrpc.version': '2.0',
      ...(method === null ? {} : { 'rpc.method': method }),
    }),
    describe(outcome, scope) {
      if (outcome.error !== undefined) {
        scope.set('rpc.jsonrpc.error_code', outcome.error.code);
        scope.set(A.providerErrorCode, outcome.error.code);
        if (outcome.error.code === PAYME_ERROR_CODES.system) scope.fail('payme: system error (-32400)');
        return;
      }
      const state = outcome.result.state;
      if (typeof state === 'number') scope.set(A.providerState, state);
    },
  };
}

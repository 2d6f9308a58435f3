import { PAYONCE_ATTRIBUTES as A } from '../../otel/attributes.js';
import type { ProviderSpanSpec } from '../provider-span.js';
import { UZUM_ERROR_CODES } from './uzum-errors.js';
import type { UzumOutcome } from './uzum-outcome.js';
import type { UzumOperation } from './uzum-request.js';

/**
 * The span of one Merchant API webhook: `uzum <operation>` (`uzum` for a path naming none), kind server, with
 * `http.response.status_code` (200, or 400 with an error code), `payonce.provider.state` (the `status` answered:
 * `CREATED`, `CONFIRMED`, `REVERSED`, …) or `payonce.provider.error_code` (`10008`, …). Only 99999 (a database
 * failure: nothing committed) marks the span failed; the protocol's refusals are answers.
 * @see docs/observability.md "Spans"; fixtures/providers/uzum/protocol.json "error_codes".
 */
export function uzumSpan(operation: UzumOperation | null): ProviderSpanSpec<UzumOutcome> {
  return {
    provider: 'uzum',
    method: operation,
    kind: 'server',
    describe(outcome, scope) {
      if (outcome.errorCode !== undefined) {
        scope.set('http.response.status_code', 400);
        scope.set(A.providerErrorCode, outcome.errorCode);
        if (outcome.errorCode === UZUM_ERROR_CODES.system) scope.fail('uzum: system error (99999)');
        return;
      }
      scope.set('http.response.status_code', 200);
      const status = outcome.body.status;
      if (typeof status === 'string') scope.set(A.providerState, status);
    },
  };
}

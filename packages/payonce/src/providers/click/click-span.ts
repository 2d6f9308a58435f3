import { PAYONCE_ATTRIBUTES as A } from '../../otel/attributes.js';
import type { ProviderSpanSpec } from '../provider-span.js';
import { CLICK_ANSWERS } from './click-answers.js';
import type { ClickOutcome } from './click-outcome.js';
import type { ParsedClickRequest } from './click-request.js';

/**
 * The span of one SHOP API call: `click Prepare` or `click Complete` (`click` when the action is neither), kind
 * server, with `payonce.provider.state` (the transaction's state after the call: `prepared`, `completed`,
 * `cancelled`), `payonce.provider.error_code` (the `error` answered when not 0), and for a signed call Click's
 * `click_trans_id` and the order (`merchant_trans_id`). Only -7 (nothing recorded) marks the span failed.
 * @see docs/observability.md "Spans"; https://docs.click.uz/en/click-api-request/
 */
export function clickSpan(parsed: ParsedClickRequest): ProviderSpanSpec<ClickOutcome> {
  const action = parsed.echo.action;
  const call = 'call' in parsed ? parsed.call : null;
  return {
    provider: 'click',
    method: action === 0 ? 'Prepare' : action === 1 ? 'Complete' : null,
    kind: 'server',
    describe(outcome, scope) {
      const tx = outcome.transaction;
      const clickTransId = tx?.clickTransId ?? call?.clickTransId;
      scope.set(A.providerTransactionId, clickTransId === undefined ? undefined : String(clickTransId));
      scope.set(A.orderId, tx?.merchantTransId ?? call?.merchantTransId);
      scope.set(A.providerState, tx?.state);
      if (outcome.answer.error !== 0) scope.set(A.providerErrorCode, outcome.answer.error);
      if (outcome.answer.error === CLICK_ANSWERS.failedToUpdate.error) scope.fail('click: failed to update (-7)');
    },
  };
}

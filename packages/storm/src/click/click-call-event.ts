import type { ClickExchange } from '@payonce/sandbox/click';
import { noAnswerText } from '../provider/call-orders.js';
import { type StormTimelineEvent, timelineEvent } from '../storm-timeline.js';

/** The answer of a Click call in a few words: `error 0`, `error -4 (Already paid)`, `no answer (timeout)`. */
function answerText(exchange: ClickExchange): string {
  const error = exchange.answer?.error;
  if (error === undefined) return noAnswerText(exchange);
  const note = exchange.answer?.error_note;
  return `error ${String(error)}${typeof note === 'string' && note !== '' ? ` (${note})` : ''}`;
}

/**
 * One SHOP API call of the Click storm as a `provider→app` timeline event: Prepare or Complete (with the signing
 * when it was not the SECRET_KEY), Click's own `error` sent, the HTTP status, the answer's `error` and note, and the
 * `click_trans_id`; tied to the order its `merchant_trans_id` names. Never the secret or the signature.
 */
export function clickCallEvent(exchange: ClickExchange, sentAtMs: number): StormTimelineEvent {
  const form = new URLSearchParams(exchange.body);
  const sign = exchange.auth === 'signed with SECRET_KEY' ? '' : ` (${exchange.auth})`;
  const sentError = form.get('error');
  const what = `Click ${exchange.what}${sign}${sentError !== null && sentError !== '0' ? ` error=${sentError}` : ''}`;
  const id = form.get('click_trans_id');
  return timelineEvent({
    atMs: sentAtMs,
    orderId: form.get('merchant_trans_id'),
    actor: 'provider→app',
    what,
    status: exchange.status,
    detail: [answerText(exchange), id === null ? null : `click_trans_id ${id}`].filter(Boolean).join(', '),
  });
}

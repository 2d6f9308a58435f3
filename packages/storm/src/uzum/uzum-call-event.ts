import type { UzumExchange } from '@payonce/sandbox/uzum';
import { type CallOrders, jsonObjectOf, noAnswerText } from '../provider/call-orders.js';
import { type StormTimelineEvent, timelineEvent } from '../storm-timeline.js';

/** The answer of an Uzum call in a few words: `CONFIRMED`, `FAILED 10014`, `no answer (timeout)`. */
function answerText(exchange: UzumExchange): string {
  const answer = exchange.answer;
  if (answer === null) return noAnswerText(exchange);
  const code = answer.errorCode;
  return [answer.status, code].filter((part) => part !== undefined && part !== null).join(' ') || 'answered';
}

/**
 * One Merchant API webhook of the Uzum storm as a `provider→app` timeline event: the operation (with the
 * authorisation when it was not the real credentials), the HTTP status, the answer's status and error code, the
 * `transId`; tied to the order its `params` name (JSON, as the Uzum judgements name orders), or that its `transId`
 * was created for (`orders`). Never the password.
 */
export function uzumCallEvent(exchange: UzumExchange, sentAtMs: number, orders: CallOrders): StormTimelineEvent {
  const body = jsonObjectOf(exchange.body);
  const id = typeof body.transId === 'string' ? body.transId : null;
  const key = typeof body.params === 'object' && body.params !== null ? JSON.stringify(body.params) : null;
  const auth = exchange.auth === 'Basic <login>:<password>' ? '' : ` (${exchange.auth})`;
  return timelineEvent({
    atMs: sentAtMs,
    orderId: orders.orderOf(id, key),
    actor: 'provider→app',
    what: `Uzum ${exchange.what}${auth}`,
    status: exchange.status,
    detail: [answerText(exchange), id === null ? null : `transId ${id}`].filter(Boolean).join(', '),
  });
}

import type { PaymeExchange } from '@payonce/sandbox/payme';
import { type CallOrders, jsonObjectOf, noAnswerText } from '../provider/call-orders.js';
import { type StormTimelineEvent, timelineEvent } from '../storm-timeline.js';

/** The answer of a Payme call in a few words: `state 2`, `allow`, `error -31050`, `no answer (timeout)`. */
function answerText(exchange: PaymeExchange): string {
  const { answer } = exchange;
  if (answer?.error !== undefined) return `error ${answer.error.code}`;
  const result = answer?.result;
  if (result === undefined) return noAnswerText(exchange);
  if (typeof result.state === 'number') return `state ${result.state}`;
  if (result.allow !== undefined) return `allow ${String(result.allow)}`;
  return 'result';
}

/**
 * One Merchant API call of the Payme storm as a `provider→app` timeline event: the method (with the authorisation
 * when it was not the cashbox key), the HTTP status, the answer (`state 2`, `error -31008`, no answer) and the
 * transaction id; tied to the order its `account` names (JSON, as the Payme judgements name orders), or that its
 * transaction id was created for (`orders`). Never the key.
 */
export function paymeCallEvent(exchange: PaymeExchange, sentAtMs: number, orders: CallOrders): StormTimelineEvent {
  const body = jsonObjectOf(exchange.body);
  const params = (body.params ?? {}) as Record<string, unknown>;
  const id = typeof params.id === 'string' ? params.id : null;
  const account = params.account;
  const key = typeof account === 'object' && account !== null ? JSON.stringify(account) : null;
  const auth = exchange.auth === 'Basic Paycom:<key>' ? '' : ` (${exchange.auth})`;
  return timelineEvent({
    atMs: sentAtMs,
    orderId: orders.orderOf(id, key),
    actor: 'provider→app',
    what: `Payme ${exchange.method}${auth}`,
    status: exchange.status,
    detail: [answerText(exchange), id === null ? null : `id ${id}`].filter(Boolean).join(', '),
  });
}

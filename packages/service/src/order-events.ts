/**
 * Outbox topics of the reference service's domain events, relayed to a broker with `--broker`
 * (`OutboxRelay`; docs/relay.md "payonce serve --broker"). Payload `{ orderId, attemptId }`, aggregate
 * `order:<id>`, so a consumer sees `order.paid` before `order.fulfilled` of one order.
 */
export const ORDER_PAID_TOPIC = 'order.paid';
/** @see ORDER_PAID_TOPIC */
export const ORDER_FULFILLED_TOPIC = 'order.fulfilled';
/** Both event topics, in the order they are written for one order. */
export const ORDER_EVENT_TOPICS: readonly string[] = Object.freeze([ORDER_PAID_TOPIC, ORDER_FULFILLED_TOPIC]);

/** The outbox topic of an order to fulfil (an `OutboxWorker` elsewhere ships it); the job's dedupe key is `order:<id>`. */
export const FULFIL_TOPIC = 'order.fulfil';

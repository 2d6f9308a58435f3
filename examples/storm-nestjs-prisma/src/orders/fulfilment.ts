/** The outbox topic of an order to ship; the job's dedupe key is `order:<id>`. */
export const FULFIL_TOPIC = 'order.fulfil';

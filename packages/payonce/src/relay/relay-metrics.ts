/**
 * Counters of one `OutboxRelay` since it was created (plain numbers, for logs, tests and the CLI; the
 * Prometheus view is `relayPrometheusMetrics`).
 */
export interface RelayCounters {
  /** Jobs the broker acknowledged and the relay then marked sent. */
  published: number;
  /** Of those, acks that said "duplicate" (JetStream dropped a republish inside its duplicate window). */
  duplicates: number;
  /** Publishes the broker could route nowhere (RabbitMQ basic.return, JetStream no stream). */
  unroutable: number;
  /** Publishes that failed otherwise (timeout, connection lost): retried. */
  failed: number;
  /** Jobs moved to the outbox dead letter (`dead`) after `maxAttempts` claims. */
  deadLettered: number;
  /** Jobs acknowledged by the broker whose lease had been taken over before the relay could mark them sent. */
  leaseLost: number;
}

/** A fresh set of zeroed counters. */
export function emptyCounters(): RelayCounters {
  return { published: 0, duplicates: 0, unroutable: 0, failed: 0, deadLettered: 0, leaseLost: 0 };
}

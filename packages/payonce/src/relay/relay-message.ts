/**
 * One outbox job as the relay hands it to a broker. `id` is the outbox job id: the broker message id
 * (`Nats-Msg-Id`, AMQP `message_id`) and the consumer's inbox key, so every copy of one job carries it.
 */
export interface RelayMessage {
  /** Outbox job id (UUID): the message id on every broker. */
  readonly id: string;
  /** Outbox topic, e.g. `order.paid`. */
  readonly topic: string;
  /** Aggregate key given at enqueue (e.g. `order:42`), or `null` for a job without ordering. */
  readonly aggregateKey: string | null;
  /** Database-assigned sequence number in the outbox order (increasing per aggregate), or `null`. */
  readonly sequence: number | null;
  /** The job's payload as stored: JSON text, UTF-8. */
  readonly payload: string;
  /** When the job was enqueued, epoch ms UTC. */
  readonly createdAtMs: number;
  /** Claims of this job so far (1 on its first publish; higher after a failed publish or a dead relay). */
  readonly attempt: number;
  /**
   * The W3C trace context the message carries (`traceparent` / `tracestate` headers): the relay's publish span,
   * set when an OpenTelemetry SDK is registered; absent otherwise.
   */
  readonly trace?: TraceHeaders | null;
}

/**
 * W3C Trace Context header values (https://www.w3.org/TR/trace-context/): `traceparent` is
 * `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`, `tracestate` the vendors' list, when there is one.
 */
export interface TraceHeaders {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** Header names payonce sets on every published message (NATS headers, AMQP `headers` table). */
export const RELAY_HEADERS = Object.freeze({
  topic: 'Payonce-Topic',
  aggregate: 'Payonce-Aggregate',
  sequence: 'Payonce-Sequence',
  createdAt: 'Payonce-Created-At',
  /** W3C Trace Context (the relay's publish span), when an OpenTelemetry SDK is registered. */
  traceparent: 'traceparent',
  tracestate: 'tracestate',
});

/** The broker subject / routing key of `topic` under `prefix`: `<prefix>.<topic>` (or `topic` for an empty prefix). */
export function subjectOf(prefix: string, topic: string): string {
  return prefix === '' ? topic : `${prefix}.${topic}`;
}

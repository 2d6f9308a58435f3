/**
 * How one guarded call ended, as `payonce.idempotency.outcome` reports it: `fresh` (this call claimed the key and
 * ran the handler: a first delivery or a retry after a failure), `replay` (the stored response, the handler did not
 * run), `waited` (a duplicate waited for the claim held elsewhere and then replayed its response), `conflict` (a
 * fresh claim is held elsewhere: `RequestInProgress`), `mismatch` (another payload under the key: `PayloadMismatch`),
 * `takeover` (this call took over a stale claim and ran the handler), `fenced` (the handler finished after its claim
 * was taken over: `ClaimLost`, nothing recorded).
 * @see docs/observability.md "Attributes".
 */
export type IdempotencyOutcome = 'fresh' | 'replay' | 'waited' | 'conflict' | 'mismatch' | 'takeover' | 'fenced';

/**
 * The `payonce.*` span and metric attributes, for what no OpenTelemetry semantic convention covers. Values are
 * identifiers and counts only: never a secret, card data, a name, a phone number or an e-mail address.
 * @see docs/observability.md "Attributes".
 */
export const PAYONCE_ATTRIBUTES = Object.freeze({
  /** {@link IdempotencyOutcome} of a guarded call. */
  outcome: 'payonce.idempotency.outcome',
  /** The provider part of a receipt's key (`stripe`, `http`, `payme`, …). */
  provider: 'payonce.receipt.provider',
  /** Claims made on the key so far, this one included. */
  attempts: 'payonce.attempts',
  /** How many earlier deliveries of this webhook event were received (0 on the first). */
  redelivery: 'payonce.delivery.redelivery',
  /** The order's id (payments). */
  orderId: 'payonce.order.id',
  /** The payment attempt's id (payments). */
  attemptId: 'payonce.attempt.id',
  /** The outbox job's id. */
  jobId: 'payonce.outbox.job.id',
  /** The outbox job's run (1 on the first). */
  jobAttempt: 'payonce.outbox.job.attempt',
  /** How an outbox run or a relayed message ended (`done`, `retry`, `dead`, `lease-lost`, `applied`, `duplicate`…). */
  result: 'payonce.result',
  /** The provider API method a provider engine answered or a payment provider call made (`CheckTransaction`, …). */
  method: 'payonce.provider.method',
  /** The provider's own id of the transaction or charge a provider engine's call concerns (Payme `id`, …). */
  providerTransactionId: 'payonce.provider.transaction.id',
  /** The transaction's state in the provider's protocol after the call (Payme `state`, Uzum `status`, …). */
  providerState: 'payonce.provider.state',
  /** The error code a provider engine answered, or a provider API answered it (Payme -31008, Click -9, …). */
  providerErrorCode: 'payonce.provider.error_code',
} as const);

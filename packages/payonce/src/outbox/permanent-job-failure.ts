/**
 * Thrown by a job handler for a failure that no retry can fix (a provider's 4xx naming the request itself: an
 * unknown charge, a wrong user). `OutboxWorker` moves the job to the dead letter at once with this error's text,
 * whatever `maxAttempts` says, instead of retrying it with backoff; an operator re-drives it (`Outbox.requeue`)
 * once the cause is fixed. Any other error is retried.
 * @see docs/outbox.md (what happens to a job).
 * @example throw new PermanentJobFailure('refundStarPayment refused (400): Bad Request: CHARGE_NOT_FOUND');
 */
export class PermanentJobFailure extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

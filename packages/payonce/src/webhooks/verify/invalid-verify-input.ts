import { WebhookError } from './webhook-error.js';

/**
 * A verify call got headers that are not a record or `Headers`-like object, or a `nowMs` that is not a
 * finite, non-negative number of milliseconds. A bug in the caller, thrown before any comparison.
 * Code `INVALID_VERIFY_INPUT`.
 */
export class InvalidVerifyInput extends WebhookError {
  /** The offending field of the verify input. */
  readonly field: 'headers' | 'nowMs';
  constructor(field: 'headers' | 'nowMs', reason: string) {
    super('INVALID_VERIFY_INPUT', `invalid verify input ${field}: ${reason}`);
    this.field = field;
  }
}

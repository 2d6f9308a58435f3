import { WebhookError } from '../verify/webhook-error.js';

/**
 * An authentic delivery whose body a provider profile cannot read: not UTF-8, not JSON (or not the form the
 * provider sends), or a field the profile needs is absent or of the wrong type or range (an amount with a
 * fraction, a timestamp in the wrong unit). The message names the provider, the field path and the expectation,
 * never the field's value (payloads carry personal data). Code `MALFORMED_WEBHOOK_PAYLOAD`; HTTP 400.
 */
export class MalformedWebhookPayload extends WebhookError {
  readonly provider: string;
  /** Dotted path of the offending field, e.g. `data.object.amount`, or `body` for the whole payload. */
  readonly path: string;
  constructor(provider: string, path: string, expectation: string, options?: ErrorOptions) {
    super('MALFORMED_WEBHOOK_PAYLOAD', `${provider} payload: ${path} ${expectation}`, options);
    this.provider = provider;
    this.path = path;
  }
}

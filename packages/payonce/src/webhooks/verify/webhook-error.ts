import { PayonceError } from '../../core/errors.js';

/**
 * Stable codes of the errors thrown by `src/webhooks`; `src/http/problem-status.ts` maps each to a status:
 * `RAW_BODY_REQUIRED` and `INVALID_VERIFY_INPUT`
 * are caller bugs (HTTP 500: the integration is wrong, not the provider), `MALFORMED_WEBHOOK_PAYLOAD` is a
 * delivery whose authentic body lacks a field the profile needs (HTTP 400).
 */
export type WebhookErrorCode = 'RAW_BODY_REQUIRED' | 'INVALID_VERIFY_INPUT' | 'MALFORMED_WEBHOOK_PAYLOAD';

/** Base class of the webhook errors; `code` is a {@link WebhookErrorCode}. */
export abstract class WebhookError extends PayonceError<WebhookErrorCode> {
  readonly code: WebhookErrorCode;
  constructor(code: WebhookErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

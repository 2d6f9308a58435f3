import { PayonceError, type PayonceErrorCode } from '../../core/errors.js';

/**
 * Stable codes of the errors thrown by `src/webhooks`. Each must also be listed in core's `PayonceErrorCode`
 * (src/core/errors.ts) so that `src/http` maps it to a status: `RAW_BODY_REQUIRED` and `INVALID_VERIFY_INPUT`
 * are caller bugs (HTTP 500: the integration is wrong, not the provider), `MALFORMED_WEBHOOK_PAYLOAD` is a
 * delivery whose authentic body lacks a field the profile needs (HTTP 400).
 */
export type WebhookErrorCode = 'RAW_BODY_REQUIRED' | 'INVALID_VERIFY_INPUT' | 'MALFORMED_WEBHOOK_PAYLOAD';

/**
 * Base class of the webhook errors. `code` holds a {@link WebhookErrorCode}; it is typed as core's
 * `PayonceErrorCode` because that union is owned by core and does not list the webhook codes yet, and this
 * constructor is the one place where that widening happens.
 */
export abstract class WebhookError extends PayonceError {
  readonly code: PayonceErrorCode;
  constructor(code: WebhookErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code as string as PayonceErrorCode;
  }
}

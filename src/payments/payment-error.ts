import { PayonceError, type PayonceErrorCode } from '../core/errors.js';

/**
 * Stable codes of the errors thrown by `src/payments`. Suggested HTTP mapping for `src/http`: `ORDER_NOT_FOUND`
 * 404, `ORDER_NOT_PAYABLE` 409, `INVALID_MONEY` 400, `INVALID_PAYMENT_EVENT` 400, `PROVIDER_DECLINED` 402.
 */
export type PaymentErrorCode =
  | 'ORDER_NOT_FOUND'
  | 'ORDER_NOT_PAYABLE'
  | 'INVALID_MONEY'
  | 'INVALID_PAYMENT_EVENT'
  | 'PROVIDER_DECLINED';

/**
 * Base class of the payments errors. `code` holds a {@link PaymentErrorCode}; it is typed as core's
 * `PayonceErrorCode` because that union is owned by core and does not list the payment codes yet, and this
 * constructor is the one place where that widening happens (as `WebhookError` does).
 */
export abstract class PaymentError extends PayonceError {
  readonly code: PayonceErrorCode;
  constructor(code: PaymentErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code as string as PayonceErrorCode;
  }
}

import { PayonceError } from '../core/errors.js';

/**
 * Stable codes of the errors thrown by `src/payments`; `PAYMENT_PROBLEMS` gives their HTTP answers: `ORDER_NOT_FOUND`
 * 404, `ORDER_NOT_PAYABLE` 409, `ORDER_ID_TAKEN` 409, `INVALID_MONEY` 400, `INVALID_PAYMENT_EVENT` 400, `PROVIDER_DECLINED` 402.
 */
export type PaymentErrorCode =
  | 'ORDER_NOT_FOUND'
  | 'ORDER_NOT_PAYABLE'
  | 'ORDER_ID_TAKEN'
  | 'INVALID_MONEY'
  | 'INVALID_PAYMENT_EVENT'
  | 'PROVIDER_DECLINED';

/** Base class of the payments errors; `code` is a {@link PaymentErrorCode}. */
export abstract class PaymentError extends PayonceError<PaymentErrorCode> {
  readonly code: PaymentErrorCode;
  constructor(code: PaymentErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

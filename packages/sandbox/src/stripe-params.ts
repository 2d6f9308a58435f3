/**
 * The parameter lists and enumerations of the sandbox's PaymentIntent and Refund endpoints, as Stripe's API
 * reference lists them; a request naming anything else is refused 400 `parameter_unknown` (`Params.only`).
 * @see https://docs.stripe.com/api/payment_intents; https://docs.stripe.com/api/refunds
 */

/** `POST /v1/payment_intents`. */
export const CREATE_PARAMS = [
  'amount',
  'currency',
  'metadata',
  'description',
  'confirm',
  'payment_method',
  'payment_method_data',
  'payment_method_types',
  'payment_method_options',
  'capture_method',
  'confirmation_method',
  'automatic_payment_methods',
  'customer',
  'receipt_email',
  'return_url',
  'off_session',
  'setup_future_usage',
  'statement_descriptor',
  'statement_descriptor_suffix',
  'shipping',
  'expand',
  'use_stripe_sdk',
  'error_on_requires_action',
  'mandate_data',
  'transfer_group',
];
/** `POST /v1/payment_intents/:id`. */
export const UPDATE_PARAMS = [
  'amount',
  'currency',
  'metadata',
  'description',
  'payment_method',
  'payment_method_types',
  'payment_method_options',
  'capture_method',
  'receipt_email',
  'setup_future_usage',
  'shipping',
  'statement_descriptor',
  'statement_descriptor_suffix',
  'expand',
];
/** `POST /v1/payment_intents/:id/confirm`. */
export const CONFIRM_PARAMS = [
  'payment_method',
  'payment_method_data',
  'payment_method_options',
  'capture_method',
  'return_url',
  'off_session',
  'receipt_email',
  'setup_future_usage',
  'shipping',
  'expand',
  'use_stripe_sdk',
  'error_on_requires_action',
  'mandate_data',
];
/** `POST /v1/payment_intents/:id/capture`. */
export const CAPTURE_PARAMS = [
  'amount_to_capture',
  'metadata',
  'expand',
  'statement_descriptor',
  'statement_descriptor_suffix',
  'final_capture',
];
/** `POST /v1/payment_intents/:id/cancel`. */
export const CANCEL_PARAMS = ['cancellation_reason', 'expand'];
/** `POST /v1/refunds`. */
export const REFUND_PARAMS = [
  'payment_intent',
  'charge',
  'amount',
  'reason',
  'metadata',
  'expand',
  'instructions_email',
];
/** `POST /v1/refunds/:id`. */
export const REFUND_UPDATE_PARAMS = ['metadata', 'expand'];
/** `capture_method` values. */
export const CAPTURE_METHODS = ['automatic', 'automatic_async', 'manual'] as const;
/** `cancellation_reason` values. */
export const CANCEL_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
/** A refund's `reason` values. */
export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
/** The PaymentIntent statuses `cancel` accepts. */
export const CANCELABLE = new Set([
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'processing',
  'requires_capture',
]);
/** The PaymentIntent statuses `confirm` (and a change of amount, currency or method) accepts. */
export const CONFIRMABLE = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action']);

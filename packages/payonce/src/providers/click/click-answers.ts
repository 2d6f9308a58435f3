/**
 * The `error` codes a merchant answers Click's SHOP API with, and their `error_note`s (Click's own texts).
 * @see https://docs.click.uz/en/click-api-error/ ("Errors returned by suppliers system"); fixtures click/protocol.json
 *   "errors_returned_by_supplier".
 */
export const CLICK_ANSWERS = Object.freeze({
  /** 0: success. */
  success: { error: 0, note: 'Success' },
  /** -1: `sign_string` does not match (wrong secret, or a field changed). */
  signCheckFailed: { error: -1, note: 'SIGN CHECK FAILED!' },
  /** -2: `amount` is not the order's (or not a sum with at most 2 decimals). */
  incorrectAmount: { error: -2, note: 'Incorrect parameter amount' },
  /** -3: `action` is neither 0 (Prepare) nor 1 (Complete). */
  actionNotFound: { error: -3, note: 'Action not found' },
  /** -4: the order or transaction was already paid (confirmed). */
  alreadyPaid: { error: -4, note: 'Already paid' },
  /** -5: no payable order named `merchant_trans_id`. */
  userNotFound: { error: -5, note: 'User does not exist' },
  /** -6: no transaction with this `merchant_prepare_id` (for this `click_trans_id`). */
  transactionNotFound: { error: -6, note: 'Transaction does not exist' },
  /** -7: the merchant failed to record the payment (database failure, `onCompleted` threw); nothing was committed. */
  failedToUpdate: { error: -7, note: 'Failed to update user' },
  /** -8: a field missing or malformed, or another `service_id`. */
  badRequest: { error: -8, note: 'Error in request from click' },
  /** -9: the transaction is cancelled (or Click reported a failed payment with `error < 0`). */
  cancelled: { error: -9, note: 'Transaction cancelled' },
} as const);

/** One of {@link CLICK_ANSWERS}. */
export type ClickAnswer = (typeof CLICK_ANSWERS)[keyof typeof CLICK_ANSWERS];

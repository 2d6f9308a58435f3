/**
 * The `error` codes the Click sandbox expects a merchant to answer, as Click's documentation lists them (fixtures
 * click/protocol.json "errors_returned_by_supplier"). Written down here, not imported from `payonce/click`, so the
 * battery checks an engine against the protocol rather than against the engine's own table.
 * @see https://docs.click.uz/en/click-api-error/
 */
export const CLICK_CODES = Object.freeze({
  success: 0,
  /** SIGN CHECK FAILED! */
  signCheckFailed: -1,
  /** Incorrect parameter amount. */
  incorrectAmount: -2,
  /** Action not found. */
  actionNotFound: -3,
  /** Already paid: confirming (or cancelling) a transaction confirmed before. */
  alreadyPaid: -4,
  /** User does not exist (merchant_trans_id). */
  userNotFound: -5,
  /** Transaction does not exist (merchant_prepare_id). */
  transactionNotFound: -6,
  /** Failed to update user (the merchant's own failure). */
  failedToUpdate: -7,
  /** Error in request from click (missing parameters etc.). */
  badRequest: -8,
  /** Transaction cancelled. */
  cancelled: -9,
});

/**
 * The `error` Click sends in a Complete when the payment failed on its side. Click's error page says only "< 0";
 * -5017 is the value Click's SHOP API test scenarios send for a failed payment (docs.click.uz testing, scenarios
 * 13 and 14, as integration notes quote the table; the stored copy of the testing page lacks it).
 * @see https://docs.click.uz/en/click-api-error/ ("Errors returned by CLICK system": < 0, the supplier cancels and answers -9)
 */
export const CLICK_FAILED_PAYMENT_ERROR = -5017;

/**
 * The `errorCode` values the Uzum sandbox expects from a merchant (JSON strings, with `status: "FAILED"`), as the
 * fixtures record them. Written down here, not imported from `payonce/uzum`, so the battery checks an engine
 * against the protocol rather than against the engine's own table. 10011, 10014, 10015, 10016 and 10018 are in none of
 * the public sources found (`"unconfirmed": true` in the fixtures): the official error table was not readable here.
 * @see fixtures uzum/protocol.json "error_codes"; https://developer.uzumbank.uz/en/merchant/
 */
export const UZUM_CODES = Object.freeze({
  /** Authorization failed. */
  accessDenied: '10001',
  /** JSON parsing error. */
  jsonParsing: '10002',
  /** Unknown operation. */
  invalidOperation: '10003',
  /** Required parameters missing. */
  missingParameters: '10005',
  /** Not this merchant's serviceId. */
  invalidServiceId: '10006',
  /** No order for `params`. */
  accountNotFound: '10007',
  /** Already paid, or the order has an active transaction. */
  alreadyPaid: '10008',
  /** Payment cancelled. */
  paymentCancelled: '10009',
  /** Invalid amount. Unconfirmed. */
  invalidAmount: '10011',
  /** No transaction with this transId. Unconfirmed. */
  transactionNotFound: '10014',
  /** /confirm of a reversed (or failed) transaction. Unconfirmed. */
  transactionCancelled: '10015',
  /** Transaction already confirmed. Unconfirmed. */
  alreadyConfirmed: '10016',
  /** Transaction already reversed. Unconfirmed. */
  alreadyReversed: '10018',
  /** Internal error at the merchant (Uzum Bank then asks /status). */
  system: '99999',
});

/** How many times Uzum Bank asks /status after an unclear answer, until CONFIRMED or FAILED. */
export const UZUM_STATUS_ATTEMPTS = 10;

/**
 * The `errorCode` values the engine answers (as JSON strings, with HTTP 400 and `status: "FAILED"`). Codes
 * 10001–10009 and 99999 agree across public implementations; 10011, 10014 and 10015 are in none of the public
 * sources found (payonce's choice) and are marked `"unconfirmed": true` in the fixtures.
 * @see fixtures/providers/uzum/protocol.json (this repository) "error_codes"; https://developer.uzumbank.uz/en/merchant/ (Error Codes)
 */
export const UZUM_ERROR_CODES = Object.freeze({
  /** Authorization failed (missing, malformed or wrong Basic credentials). */
  accessDenied: '10001',
  /** The body is not a JSON object. */
  jsonParsing: '10002',
  /** The path names no Merchant API webhook. */
  invalidOperation: '10003',
  /** A required field is missing or of the wrong type. */
  missingParameters: '10005',
  /** `serviceId` is not this merchant's. */
  invalidServiceId: '10006',
  /** `params` names no payable order (`findOrder` answered null). */
  accountNotFound: '10007',
  /** The order is paid, or has another live transaction. */
  alreadyPaid: '10008',
  /** The transaction was reversed (a repeated /create of a reversed transId). */
  paymentCancelled: '10009',
  /** `amount` is not the order's amount. Unconfirmed. */
  invalidAmount: '10011',
  /** No transaction with this `transId`. Unconfirmed. */
  transactionNotFound: '10014',
  /** /confirm of a reversed transaction. Unconfirmed. */
  transactionCancelled: '10015',
  /** An unexpected failure (a database error): nothing was committed. */
  system: '99999',
} as const);

/** One of {@link UZUM_ERROR_CODES}. */
export type UzumErrorCode = (typeof UZUM_ERROR_CODES)[keyof typeof UZUM_ERROR_CODES];

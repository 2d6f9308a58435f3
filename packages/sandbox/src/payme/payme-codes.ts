/**
 * The Merchant API error codes the Payme sandbox expects from a merchant, as Payme's documentation lists them
 * (fixtures payme/errors.json "general" and "merchant"). Written down here, not imported from `payonce/payme`, so
 * the battery checks an engine against the protocol rather than against the engine's own table.
 * @see https://developer.help.paycom.uz/metody-merchant-api/oshibki-errors
 */
export const PAYME_CODES = Object.freeze({
  /** The HTTP method is not POST. */
  notPost: -32300,
  /** The body is not JSON. */
  parse: -32700,
  /** Required RPC fields missing or of the wrong type. */
  invalidRequest: -32600,
  /** Method not found (`data`: the method name). */
  methodNotFound: -32601,
  /** Insufficient privileges: the Basic credentials are wrong or missing. */
  insufficientPrivilege: -32504,
  /** System error at the merchant (Payme repeats the call). */
  system: -32400,
  /** Wrong amount. */
  wrongAmount: -31001,
  /** Transaction not found. */
  transactionNotFound: -31003,
  /** Cannot cancel: the goods or service were delivered. */
  cannotCancel: -31007,
  /** Operation impossible in the transaction's current state. */
  impossible: -31008,
  /** The first code of the account range -31050 … -31099. */
  accountFirst: -31050,
  /** The last code of the account range -31050 … -31099. */
  accountLast: -31099,
});

/** Whether `code` lies in the account-error range -31050 … -31099 (errors.json "-31050..-31099"). */
export function isAccountCode(code: unknown): boolean {
  return typeof code === 'number' && code <= PAYME_CODES.accountFirst && code >= PAYME_CODES.accountLast;
}

/**
 * Cancel reasons Payme sends with CancelTransaction (fixtures payme/states-and-reasons.json "reasons").
 * @see https://developer.help.paycom.uz/metody-merchant-api/canceltransaction
 */
export const PAYME_REASONS = Object.freeze({
  receiversNotFound: 1,
  processingFailed: 2,
  executionFailed: 3,
  timeout: 4,
  fundReturned: 5,
  unknown: 10,
});

/** 12 hours in ms: a transaction in state 1 this long after Payme's `time` is cancelled with reason 4. */
export const PAYME_TIMEOUT_MS = 43_200_000;

/**
 * 12 hours in ms: a transaction still in state 1 this long after Payme's creation `time` is cancelled by timeout
 * (state -1, reason 4). @see fixtures payme/states-and-reasons.json "timeout_ms";
 * https://developer.help.paycom.uz/metody-merchant-api/createtransaction
 */
export const PAYME_TIMEOUT_MS = 43_200_000;

/** Payme's Merchant API documentation pages the battery cites (fixtures payme/*.json name the same pages). */
const DOCS = 'https://developer.help.paycom.uz/metody-merchant-api';

export const SOURCES = Object.freeze({
  errors: `${DOCS}/oshibki-errors (fixtures payme/errors.json)`,
  auth: `${DOCS}/ — Basic auth with login "Paycom" and the cashbox key (fixtures payme/auth/*.json)`,
  checkPerform: `${DOCS}/checkperformtransaction (fixtures payme/rpc/CheckPerformTransaction.json)`,
  create: `${DOCS}/createtransaction (fixtures payme/rpc/CreateTransaction.json, payme/idempotency-rules.json)`,
  perform: `${DOCS}/performtransaction/ (fixtures payme/rpc/PerformTransaction.json, payme/idempotency-rules.json)`,
  cancel: `${DOCS}/canceltransaction (fixtures payme/rpc/CancelTransaction.json, payme/idempotency-rules.json)`,
  check: `${DOCS}/checktransaction (fixtures payme/rpc/CheckTransaction.json, payme/states-and-reasons.json)`,
  statement: `${DOCS}/getstatement (fixtures payme/rpc/GetStatement.json; fields per ${DOCS}/tipy-dannykh/)`,
});

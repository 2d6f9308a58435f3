/**
 * `@payonce/sandbox/payme`: a client-side Payme that pays orders through a merchant's Merchant API endpoint (with
 * fault injection and a ledger), and the acceptance battery Payme's sandbox runs before a cashbox goes live.
 * @see docs/sandbox.md "Payme sandbox"; https://developer.help.paycom.uz/pesochnitsa
 */

export type { PaySteps } from '../acceptance/pay-steps.js';
export {
  PAYME_ACCEPTANCE_ORDERS,
  type PaymeAcceptanceOptions,
  runPaymeAcceptance,
} from './payme-acceptance.js';
export { formatPaymeReport, type PaymeAcceptanceReport, type PaymeCheckResult } from './payme-acceptance-report.js';
export { isAccountCode, PAYME_CODES, PAYME_REASONS } from './payme-codes.js';
export {
  type PaymeFaultRecord,
  PaymeLedger,
  type PaymeLedgerSnapshot,
  type PaymeLedgerTransaction,
  type PaymeMismatch,
  type PaymeMovement,
} from './payme-ledger.js';
export { PAYME_FAULT_NAMES, type PaymePayFaults, parsePaymeFaults } from './payme-pay-faults.js';
export {
  createPaymePayer,
  newPaymeId,
  type PaymePayer,
  type PaymePayerOptions,
  type PaymePayResult,
} from './payme-payer.js';
export type { PaymeAuthMode, PaymeExchange, PaymeRpcAnswer, PaymeTarget } from './payme-rpc.js';
export type { PaymeOrderSource, PaymeTestOrder } from './payme-test-orders.js';

/**
 * `@payonce/sandbox/uzum`: an Uzum Bank that pays orders through a merchant's Merchant API webhooks (with fault
 * injection, /status polling and a ledger), and an acceptance battery of the Merchant API.
 * @see docs/sandbox.md "Uzum sandbox"; https://developer.uzumbank.uz/en/merchant/
 */
export { type AcceptanceReport, formatAcceptanceReport } from '../acceptance/acceptance-report.js';
export type { CheckResult, ShownExchange } from '../acceptance/check-runner.js';
export type { PaySteps } from '../acceptance/pay-steps.js';
export {
  runUzumAcceptance,
  UZUM_ACCEPTANCE_ORDERS,
  type UzumAcceptanceOptions,
  type UzumAcceptanceReport,
} from './uzum-acceptance.js';
export { UZUM_CODES, UZUM_STATUS_ATTEMPTS } from './uzum-codes.js';
export {
  UzumLedger,
  type UzumLedgerNote,
  type UzumLedgerSnapshot,
  type UzumLedgerTransaction,
  type UzumMovement,
} from './uzum-ledger.js';
export { parseUzumFaults, UZUM_FAULT_NAMES, type UzumPayFaults } from './uzum-pay-faults.js';
export { createUzumPayer, type UzumPayer, type UzumPayerOptions, type UzumPayResult } from './uzum-payer.js';
export type { UzumOrderSource, UzumTestOrder } from './uzum-test-orders.js';
export {
  callUzum,
  type UzumAuthMode,
  type UzumCallSpec,
  type UzumExchange,
  type UzumTarget,
} from './uzum-wire.js';

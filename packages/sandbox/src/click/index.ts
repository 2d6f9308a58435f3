/**
 * `@payonce/sandbox/click`: a Click that pays orders through a merchant's SHOP API Prepare and Complete URLs (with
 * fault injection and a ledger), and the acceptance battery of Click's SHOP API test scenarios.
 * @see docs/sandbox.md "Click sandbox"; https://docs.click.uz/en/click-api-testing/
 */
export {
  type AcceptanceReport,
  formatAcceptanceReport,
} from '../acceptance/acceptance-report.js';
export type { CheckResult, ShownExchange } from '../acceptance/check-runner.js';
export type { PaySteps } from '../acceptance/pay-steps.js';
export {
  CLICK_ACCEPTANCE_ORDERS,
  type ClickAcceptanceOptions,
  type ClickAcceptanceReport,
  runClickAcceptance,
} from './click-acceptance.js';
export { CLICK_CODES, CLICK_FAILED_PAYMENT_ERROR } from './click-codes.js';
export {
  ClickLedger,
  type ClickLedgerNote,
  type ClickLedgerSnapshot,
  type ClickLedgerTransaction,
  type ClickMovement,
} from './click-ledger.js';
export { CLICK_FAULT_NAMES, type ClickPayFaults, parseClickFaults } from './click-pay-faults.js';
export { type ClickPayer, type ClickPayerOptions, type ClickPayResult, createClickPayer } from './click-payer.js';
export type { ClickOrderSource, ClickTestOrder } from './click-test-orders.js';
export { newClickTransId } from './click-trans-id.js';
export {
  type ClickCallSpec,
  type ClickExchange,
  type ClickReply,
  type ClickTarget,
  callClick,
  clickAmountOf,
  signClick,
} from './click-wire.js';

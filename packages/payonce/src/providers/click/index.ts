export { tiyinFromClickAmount } from './click-amount.js';
export { CLICK_ANSWERS, type ClickAnswer } from './click-answers.js';
export type { ClickKeyProvider } from './click-key-provider.js';
export {
  type ClickMerchant,
  type ClickRequest,
  type ClickResponse,
  createClickMerchant,
} from './click-merchant.js';
export { type ClickMerchantAuthOptions, clickMerchantAuth } from './click-merchant-auth.js';
export type { ClickMerchantOptions } from './click-merchant-options.js';
export {
  CLICK_CURRENCY,
  CLICK_PROVIDER,
  type ClickOnPaymentsHooks,
  clickOnPayments,
} from './click-on-payments.js';
export type { ClickOrder } from './click-order.js';
export { type ClickSignedFields, clickSignString } from './click-sign.js';
export type { ClickState, ClickTransaction } from './click-transaction.js';

export { UZUM_ERROR_CODES, type UzumErrorCode } from './uzum-errors.js';
export {
  createUzumMerchant,
  type UzumMerchant,
  type UzumRequest,
  type UzumResponse,
} from './uzum-merchant.js';
export type { UzumMerchantOptions } from './uzum-merchant-options.js';
export {
  UZUM_CURRENCY,
  UZUM_PROVIDER,
  type UzumOnPaymentsHooks,
  type UzumOnPaymentsOptions,
  uzumOnPayments,
} from './uzum-on-payments.js';
export type { UzumOrder } from './uzum-order.js';
export { UZUM_OPERATIONS, type UzumOperation } from './uzum-request.js';
export type { UzumStatus, UzumTransaction } from './uzum-transaction.js';

export { memoryPaymeKeys } from './memory-payme-keys.js';
export { PAYME_ERROR_CODES, type PaymeMessage, type PaymeRpcError } from './payme-errors.js';
export type { PaymeKeyProvider } from './payme-key-provider.js';
export {
  createPaymeMerchant,
  type PaymeMerchant,
  type PaymeRequest,
  type PaymeResponse,
} from './payme-merchant.js';
export type { PaymeMerchantOptions } from './payme-merchant-options.js';
export {
  PAYME_CURRENCY,
  PAYME_PROVIDER,
  type PaymeOnPaymentsHooks,
  type PaymeOnPaymentsOptions,
  paymeOnPayments,
} from './payme-on-payments.js';
export type { PaymeOrder } from './payme-order.js';
export { PAYME_METHODS, type PaymeMethod } from './payme-request.js';
export { PAYME_TIMEOUT_MS } from './payme-timeout.js';
export type { PaymeState, PaymeTransaction } from './payme-transaction.js';
export { type StoredPaymeKeys, type StoredPaymeKeysOptions, storedPaymeKeys } from './stored-payme-keys.js';

export { telegramAcknowledgement } from './telegram-acknowledgement.js';
export { isCommitted, type TelegramOrdering, type TelegramUpdateOutcome } from './telegram-batch.js';
export {
  type FetchLike,
  type GetUpdatesParams,
  type GetUpdatesResult,
  type TelegramApiOptions,
  TelegramBotApi,
} from './telegram-bot-api.js';
export { TelegramBotClient, type TelegramCallResult } from './telegram-bot-client.js';
export { botIdOfToken, checkBotId } from './telegram-bot-id.js';
export type { StarChargeRefundRequest, StarRefundKind } from './telegram-charge-refund.js';
export type { TelegramCharge, TelegramChargeDecision } from './telegram-charges.js';
export { telegramChatOf } from './telegram-chat-of.js';
export {
  TELEGRAM_STARS,
  type TelegramInvoiceParams,
  type TelegramInvoiceText,
  telegramInvoice,
} from './telegram-invoice.js';
export { nextOffset } from './telegram-offset.js';
export { type TelegramRefundPayload, telegramPaidEvent, telegramRefundEvent } from './telegram-payment-events.js';
export {
  type PreCheckoutFacts,
  preCheckoutOf,
  type SuccessfulPaymentFacts,
  successfulPaymentOf,
} from './telegram-payment-facts.js';
export {
  type LatePreCheckout,
  type TelegramPaymentStep,
  TelegramPayments,
  type TelegramPaymentsOptions,
  type TelegramPaymentsStats,
} from './telegram-payments.js';
export { TELEGRAM_POLL_LEASE_PROVIDER, TelegramPollLease } from './telegram-poll-lease.js';
export { TelegramPoller, type TelegramPollerEvents } from './telegram-poller.js';
export type {
  ResolvedPollerOptions,
  TelegramPollerOptions,
  TelegramUpdateContext,
} from './telegram-poller-options.js';
export {
  DEFAULT_REFUSAL_TEXTS,
  decidePreCheckout,
  type PreCheckoutAnswer,
  type TelegramRefusalTexts,
} from './telegram-pre-checkout.js';
export { type TelegramProfileOptions, telegramProfile } from './telegram-profile.js';
export { TELEGRAM_REDACT_PATHS, telegramRedaction } from './telegram-redaction.js';
export {
  TELEGRAM_SECRET_HEADER,
  type TelegramSecretTokenOptions,
  telegramSecretTokenScheme,
} from './telegram-secret-token-scheme.js';
export {
  type StarRefundRequest,
  type StrayStarRefundRequest,
  TELEGRAM_REFUND_TOPIC,
  telegramRefundEffectKey,
} from './telegram-star-refund.js';
export { EXTRA_TELEGRAM_CHARGE, type SuccessfulPaymentResult } from './telegram-successful-payment.js';
export { TELEGRAM_CHARGES_TABLE, type TelegramChargesTable, type TelegramDatabase } from './telegram-tables.js';
export {
  isUpdateId,
  TELEGRAM_PROVIDER,
  type TelegramUpdate,
  telegramUpdateKey,
  telegramUpdateKind,
} from './telegram-update.js';
export { type TelegramWebhookOptions, telegramWebhook } from './telegram-webhook.js';

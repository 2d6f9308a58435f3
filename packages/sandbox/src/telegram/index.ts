/**
 * `@payonce/sandbox/telegram`: a fake Telegram Bot API (long polling, webhooks with redelivery, invoices, a
 * simulated customer paying through pre-checkout, Stars refunds) with fault injection and a ledger.
 * @see docs/sandbox.md "Telegram sandbox"; https://core.telegram.org/bots/api
 */
export { TelegramBotError } from './telegram-bot-error.js';
export {
  type CustomerPayOptions,
  type CustomerPayResult,
  customerPays,
  PRE_CHECKOUT_DEADLINE_MS,
} from './telegram-customer.js';
export { parseTelegramFaults, TELEGRAM_FAULT_NAMES, type TelegramFaults } from './telegram-faults.js';
export type { SandboxInvoice } from './telegram-invoices.js';
export {
  TelegramLedger,
  type TelegramLedgerNote,
  type TelegramLedgerSnapshot,
  type TelegramMovement,
} from './telegram-ledger.js';
export { SANDBOX_METHODS, type SandboxMethod } from './telegram-methods.js';
export { createTelegramSandbox, type TelegramSandbox, type TelegramSandboxOptions } from './telegram-sandbox.js';
export type { SentMessage } from './telegram-state.js';
export type { SandboxUpdate, SandboxWebhook, WebhookDeliveryRecord } from './telegram-update-feed.js';

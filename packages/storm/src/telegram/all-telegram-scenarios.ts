import { telegramNon2xx, telegramRedelivered } from './telegram-delivery-scenarios.js';
import {
  telegramForeignPayment,
  telegramPaidPreCheckout,
  telegramPaymentTwice,
  telegramRefundTwice,
} from './telegram-payment-scenarios.js';
import { telegramCrashMidUpdate, telegramJobRerun } from './telegram-recovery-scenarios.js';
import type { TelegramScenario } from './telegram-scenario.js';

/** Every Telegram storm scenario, by number (docs/storm.md "Telegram storm"). */
export const ALL_TELEGRAM_SCENARIOS: readonly TelegramScenario[] = Object.freeze([
  telegramRedelivered,
  telegramNon2xx,
  telegramPaidPreCheckout,
  telegramPaymentTwice,
  telegramForeignPayment,
  telegramRefundTwice,
  telegramJobRerun,
  telegramCrashMidUpdate,
]);

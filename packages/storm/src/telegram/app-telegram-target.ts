import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { StormAppAdapter } from '../app/storm-app-adapter.js';
import { appProviderTarget } from '../provider/app-provider-target.js';
import type { TelegramStormTarget } from './telegram-storm-target.js';

/**
 * The Telegram storm target of an app through its storm adapter (docs/storm-your-app.md "Telegram"): Telegram's
 * updates go to `adapter.providers.telegram.webhookUrl` with `secretToken`; an order is created with
 * `adapter.createOrder` (`XTR`, whole stars), its id being the invoice payload, and invoiced through
 * `providers.telegram.sendInvoice`; a refund is asked through `providers.telegram.requestRefund` (absent: the refund
 * scenario is skipped with the reason); the rest is `appProviderTarget`'s (counts, crash, job re-run). The adapter
 * stays open.
 * @throws {InvalidOption} (`adapter.providers.telegram`) the adapter declares no Telegram webhook; (`secretToken`)
 *   empty.
 */
export function appTelegramTarget(adapter: StormAppAdapter, secretToken: string): TelegramStormTarget {
  const telegram = adapter.providers?.telegram;
  if (telegram === undefined) {
    throw new InvalidOption('adapter.providers.telegram', 'the adapter declares no Telegram webhook');
  }
  if (typeof secretToken !== 'string' || secretToken === '')
    throw new InvalidOption('secretToken', 'must be non-empty');
  const base = appProviderTarget(adapter, {
    prefix: 'storm-telegram',
    currency: 'XTR',
    orderOf: (orderId: string) => orderId,
    idOf: (orderId: string) => orderId,
  });
  const { customer } = base;
  const refund = telegram.requestRefund?.bind(telegram);
  const lacksRefund = `the app adapter ${adapter.name} lacks providers.telegram.requestRefund`;
  return {
    ...base,
    webhookUrl: telegram.webhookUrl,
    secretToken,
    missing: { ...base.missing, ...(refund === undefined ? { refund: lacksRefund } : {}) },
    sendInvoice: (orderId, chatId) => telegram.sendInvoice({ customer, orderId, chatId }),
    ...(refund === undefined
      ? {}
      : {
          requestRefund: (orderId: string, userId: number, chargeId: string) =>
            refund({ customer, orderId, userId, chargeId }),
        }),
  };
}

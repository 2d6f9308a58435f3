import type { HeldOrderCounts, StormTargetCapabilities } from '../provider/storm-target-capabilities.js';

/**
 * A payment bot the Telegram storm drives: the webhook Telegram posts the bot's updates to (with its secret token),
 * a way to create a payable `XTR` order and have the bot send its invoice, to read what it recorded about an order,
 * and optionally to ask a Stars refund, plus the capabilities of {@link StormTargetCapabilities} (crash, job re-run).
 * The bot must call the Bot API of the storm's Telegram sandbox (`payonce serve --telegram-api-url`).
 * @see docs/storm.md "Telegram storm".
 */
export interface TelegramStormTarget extends StormTargetCapabilities<string> {
  /** Where Telegram posts updates, e.g. `http://127.0.0.1:3000/telegram/webhook`. */
  readonly webhookUrl: string;
  /** The `secret_token` of `setWebhook`, sent in `X-Telegram-Bot-Api-Secret-Token`. Never printed. */
  readonly secretToken: string;
  /** Creates a payable order of `stars` (currency `XTR`) and returns its id (the invoice payload). */
  createOrder(stars: number): Promise<string>;
  /** Has the bot send the order's invoice to `chatId` (`sendInvoice` on the sandbox). @throws {Error} it did not. */
  sendInvoice(orderId: string, chatId: number): Promise<void>;
  /** What the target recorded about the order (`heldTiyin`: the stars it holds as paid). @throws {Error} unreadable. */
  readOrder(orderId: string): Promise<HeldOrderCounts>;
  /** Asks the Stars refund of the order's charge; the HTTP status. Absent: the refund scenario is skipped. */
  requestRefund?(orderId: string, userId: number, chargeId: string): Promise<{ readonly status: number }>;
  /** Why a capability is absent (`crash`, `rerun`, `refund`), for the skip reason. */
  readonly missing?: Readonly<{ crash?: string; rerun?: string; refund?: string }>;
}

import type { CustomerPayOptions, CustomerPayResult, TelegramMovement } from '@payonce/sandbox/telegram';

/**
 * The part of the Telegram sandbox (`createTelegramSandbox`) the storm uses: its Bot API root and token (the storm
 * long-polls the updates there), the invoices the bot sent, the simulated customer, and the ledger of what moved.
 */
export interface TelegramStormSandbox {
  /** The Bot API root the bot was started with (`--telegram-api-url`). */
  readonly url: string;
  /** The one bot token the sandbox accepts. Never printed. */
  readonly token: string;
  invoices(): readonly { readonly ref: string; readonly payload: string }[];
  pay(options?: CustomerPayOptions): Promise<CustomerPayResult>;
  readonly ledger: { snapshot(): { readonly movements: readonly TelegramMovement[] } };
}

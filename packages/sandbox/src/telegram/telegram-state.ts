import type { TelegramFaults } from './telegram-faults.js';
import type { SandboxInvoice } from './telegram-invoices.js';
import type { TelegramLedger } from './telegram-ledger.js';
import type { TelegramUpdateFeed } from './telegram-update-feed.js';

/** A pre-checkout query waiting for the bot's `answerPreCheckoutQuery`. */
export interface OpenPreCheckout {
  readonly id: string;
  /** Epoch ms after which an answer is refused (Telegram: 10 s after sending the query). */
  readonly deadlineMs: number;
  /** Resolves the customer's wait with the bot's answer. */
  readonly settle: (answer: { ok: boolean; errorMessage: string | null }) => void;
}

/** A message the bot sent with `sendMessage`. */
export interface SentMessage {
  readonly chatId: number | string;
  readonly text: string;
}

/** What the sandbox's methods and customer share. */
export interface TelegramSandboxState {
  readonly botId: number;
  readonly username: string;
  readonly faults: TelegramFaults;
  readonly ledger: TelegramLedger;
  readonly feed: TelegramUpdateFeed;
  readonly invoices: Map<string, SandboxInvoice>;
  readonly preCheckouts: Map<string, OpenPreCheckout>;
  readonly messages: SentMessage[];
  /** The next message id, charge number, query number (sandbox-wide counters). */
  counter: number;
}

/** Unix seconds now (Telegram's `date`). */
export const unixNow = (): number => Math.floor(Date.now() / 1000);

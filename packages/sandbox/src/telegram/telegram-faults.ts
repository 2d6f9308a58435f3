/**
 * Faults the Telegram sandbox injects. Counters are consumed one per use (`loseGetUpdates: 2` loses the next two
 * `getUpdates` answers).
 */
export interface TelegramFaults {
  /** Every update is delivered (webhook) or queued (long polling) twice, with the same `update_id`. */
  duplicate?: boolean;
  /** Each batch (`getUpdates`) or pair of webhook deliveries comes in reverse `update_id` order. */
  reorder?: boolean;
  /** The next N `getUpdates` answers are lost: the connection is cut after Telegram chose them (none confirmed). */
  loseGetUpdates?: number;
  /** The customer's pre-checkout deadline (10 s at Telegram), milliseconds, for a slow-answer test. */
  preCheckoutDeadlineMs?: number;
  /**
   * The customer pays without a pre-checkout (as when the merchant cancelled the order after approving the query):
   * a `successful_payment` arrives for whatever order the invoice names.
   */
  skipPreCheckout?: boolean;
}

/** The names `parseTelegramFaults` knows. */
export const TELEGRAM_FAULT_NAMES: readonly string[] = Object.freeze([
  'duplicate',
  'reorder',
  'lose-get-updates=N',
  'slow-pre-checkout=MS',
  'cancelled-order',
]);

/**
 * Parses `duplicate,reorder,lose-get-updates=2,slow-pre-checkout=200,cancelled-order` (the CLI's `--inject`).
 * `slow-pre-checkout=MS` sets the customer's deadline to MS milliseconds; `cancelled-order` is `skipPreCheckout`.
 * @throws {Error} an unknown fault name or a value that is not a non-negative integer.
 */
export function parseTelegramFaults(text: string): TelegramFaults {
  const faults: TelegramFaults = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const [name, raw] = part.split('=', 2) as [string, string | undefined];
    const count = raw === undefined ? 1 : Number(raw);
    if (!Number.isSafeInteger(count) || count < 0) throw new Error(`fault ${name}: ${raw} is not a whole number`);
    if (name === 'duplicate') faults.duplicate = true;
    else if (name === 'reorder') faults.reorder = true;
    else if (name === 'lose-get-updates') faults.loseGetUpdates = count;
    else if (name === 'slow-pre-checkout') faults.preCheckoutDeadlineMs = count;
    else if (name === 'cancelled-order') faults.skipPreCheckout = true;
    else throw new Error(`unknown fault ${name} (known: ${TELEGRAM_FAULT_NAMES.join(', ')})`);
  }
  return faults;
}

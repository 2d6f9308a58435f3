/** `payonce_telegram_charges` as Kysely sees it (migration `0015-telegram-charges`); BIGINT may come back as strings. */
export interface TelegramChargesTable {
  charge_id: string;
  user_id: number | string | bigint | null;
  order_ref: string | null;
  amount_minor: number | string | bigint | null;
  currency: string | null;
  decision: string;
  received_at: number | string | bigint;
  stray_refunded_at: number | string | bigint | null;
}

/** The Telegram Payments engine's tables, for its query-builder statements. */
export interface TelegramDatabase {
  payonce_telegram_charges: TelegramChargesTable;
}

/** The table of every charge the engine received (group `telegram`). */
export const TELEGRAM_CHARGES_TABLE = 'payonce_telegram_charges';

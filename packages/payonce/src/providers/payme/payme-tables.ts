/** `payonce_payme_transactions` as Kysely sees it (migration `0011-payme`); BIGINT columns may come back as strings. */
export interface PaymeTransactionsTable {
  payme_id: string;
  transaction_id: string;
  order_id: string;
  account: string;
  amount_tiyin: number | string | bigint;
  state: number | string;
  reason: number | string | null;
  payme_time: number | string | bigint;
  create_time: number | string | bigint;
  perform_time: number | string | bigint | null;
  cancel_time: number | string | bigint | null;
  fiscal_perform: string | null;
  fiscal_cancel: string | null;
}

/** `payonce_payme_keys` (migration `0011-payme`). */
export interface PaymeKeysTable {
  cashbox: string;
  merchant_key: string;
  updated_at: number | string | bigint;
}

/** The Payme engine's tables, for its query-builder statements. */
export interface PaymeDatabase {
  payonce_payme_transactions: PaymeTransactionsTable;
  payonce_payme_keys: PaymeKeysTable;
}

export const PAYME_TRANSACTIONS_TABLE = 'payonce_payme_transactions';
export const PAYME_KEYS_TABLE = 'payonce_payme_keys';

import type { Generated } from 'kysely';

/** `payonce_click_transactions` as Kysely sees it (migration `0012-click`); BIGINT columns may come back as strings. */
export interface ClickTransactionsTable {
  merchant_prepare_id: Generated<number | string | bigint>;
  click_trans_id: number | string | bigint;
  click_paydoc_id: number | string | bigint | null;
  service_id: number | string | bigint;
  merchant_trans_id: string;
  amount_tiyin: number | string | bigint;
  state: number | string;
  click_error: number | string | null;
  prepare_time: number | string | bigint;
  complete_time: number | string | bigint | null;
  cancel_time: number | string | bigint | null;
}

/** The Click engine's tables, for its query-builder statements. */
export interface ClickDatabase {
  payonce_click_transactions: ClickTransactionsTable;
}

export const CLICK_TRANSACTIONS_TABLE = 'payonce_click_transactions';

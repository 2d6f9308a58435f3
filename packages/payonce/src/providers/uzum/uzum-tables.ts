/** `payonce_uzum_transactions` as Kysely sees it (migration `0013-uzum`); BIGINT columns may come back as strings. */
export interface UzumTransactionsTable {
  trans_id: string;
  order_id: string;
  params: string;
  amount_tiyin: number | string | bigint;
  status: string;
  data: string;
  trans_time: number | string | bigint;
  confirm_time: number | string | bigint | null;
  reverse_time: number | string | bigint | null;
}

/** The Uzum engine's tables, for its query-builder statements. */
export interface UzumDatabase {
  payonce_uzum_transactions: UzumTransactionsTable;
}

export const UZUM_TRANSACTIONS_TABLE = 'payonce_uzum_transactions';

import { CLICK_STATE_CODES, type ClickState } from 'payonce/internal/providers/click/click-transaction.js';
import { ServiceError } from '../service-error.js';
import { keysetPage, type Page, type PageQuery } from './admin-cursor.js';
import {
  type ClickTransactionItem,
  clickItem,
  type PaymeTransactionItem,
  type ProviderTransactionItem,
  paymeItem,
  type UzumTransactionItem,
  uzumItem,
} from './admin-provider-items.js';
import type { AdminReads } from './admin-reads.js';

/**
 * The states each provider's transactions can be filtered by, as the query string writes them: Payme's numeric
 * states (fixtures payme/states-and-reasons.json), Click's and Uzum's stored statuses (the engines'
 * `ClickState`, `UzumStatus`).
 */
export const PROVIDER_TRANSACTION_STATES = Object.freeze({
  payme: ['1', '2', '-1', '-2'],
  click: ['prepared', 'completed', 'cancelled'],
  uzum: ['CREATED', 'CONFIRMED', 'REVERSED'],
} as const);

/** A provider whose merchant-side engine keeps transactions in the service's database. */
export type TransactionProvider = keyof typeof PROVIDER_TRANSACTION_STATES;

/** Filters of the provider transactions list. */
export interface ProviderTransactionQuery extends PageQuery {
  /** Whose transactions: one engine's table per page. @default 'payme' */
  readonly provider?: TransactionProvider;
  /** One of `PROVIDER_TRANSACTION_STATES[provider]`. */
  readonly state?: string;
  /** Only the transactions of this service order. */
  readonly orderId?: string;
}

/**
 * `state` checked against `provider`'s states.
 * @throws {ServiceError} `ADMIN_QUERY_INVALID` for a state of another provider (`state=CONFIRMED` with Payme).
 */
function stateFilter(provider: TransactionProvider, state: string | undefined): string | undefined {
  if (state === undefined) return undefined;
  const states: readonly string[] = PROVIDER_TRANSACTION_STATES[provider];
  if (!states.includes(state)) {
    throw new ServiceError('ADMIN_QUERY_INVALID', `state of ${provider} must be one of ${states.join(', ')}`);
  }
  return state;
}

function paymePage(reads: AdminReads, query: ProviderTransactionQuery, state: string | undefined) {
  let q = reads.db.selectFrom('payonce_payme_transactions').selectAll();
  if (state !== undefined) q = q.where('state', '=', Number(state));
  if (query.orderId) q = q.where('order_id', '=', query.orderId);
  return keysetPage(q, ['create_time', 'payme_id'], query, (row) => paymeItem(reads.redactor, row));
}

function clickPage(reads: AdminReads, query: ProviderTransactionQuery, state: string | undefined) {
  let q = reads.db.selectFrom('payonce_click_transactions').selectAll();
  if (state !== undefined) q = q.where('state', '=', CLICK_STATE_CODES[state as ClickState]);
  if (query.orderId) q = q.where('merchant_trans_id', '=', query.orderId);
  return keysetPage(q, ['prepare_time', 'merchant_prepare_id'], query, (row) => clickItem(reads.redactor, row));
}

function uzumPage(reads: AdminReads, query: ProviderTransactionQuery, state: string | undefined) {
  let q = reads.db.selectFrom('payonce_uzum_transactions').selectAll();
  if (state !== undefined) q = q.where('status', '=', state);
  if (query.orderId) q = q.where('order_id', '=', query.orderId);
  return keysetPage(q, ['trans_time', 'trans_id'], query, (row) => uzumItem(reads.redactor, row));
}

/**
 * One provider's transactions (`query.provider`, default Payme), newest first — Payme by `create_time`, Click by
 * `prepare_time`, Uzum by `trans_time` — filtered by state and order, keyset-paged like every admin list.
 * @throws {ServiceError} `ADMIN_QUERY_INVALID` for a state of another provider or a bad cursor.
 */
export async function listProviderTransactions(
  reads: AdminReads,
  query: ProviderTransactionQuery,
): Promise<Page<ProviderTransactionItem>> {
  const provider = query.provider ?? 'payme';
  const state = stateFilter(provider, query.state);
  switch (provider) {
    case 'payme':
      return paymePage(reads, query, state);
    case 'click':
      return clickPage(reads, query, state);
    case 'uzum':
      return uzumPage(reads, query, state);
  }
}

/** Most transactions of one provider an order's read shows (a Payme order may collect many cancelled ones). */
export const ORDER_TRANSACTIONS_MAX = 100;

/** One order's transactions at each provider engine, newest first, at most {@link ORDER_TRANSACTIONS_MAX} each. */
export interface OrderProviderTransactions {
  readonly orderId: string;
  readonly payme: readonly PaymeTransactionItem[];
  readonly click: readonly ClickTransactionItem[];
  readonly uzum: readonly UzumTransactionItem[];
}

/**
 * The Payme, Click and Uzum transactions of service order `orderId` (Payme's and Uzum's `order_id`, Click's
 * `merchant_trans_id`), or `null` when there is no such order.
 */
export async function orderProviderTransactions(
  reads: AdminReads,
  orderId: string,
): Promise<OrderProviderTransactions | null> {
  const order = await reads.db.selectFrom('payonce_orders').select('id').where('id', '=', orderId).executeTakeFirst();
  if (!order) return null;
  const of = async <T extends ProviderTransactionItem>(provider: TransactionProvider): Promise<T[]> =>
    (await listProviderTransactions(reads, { provider, orderId, limit: ORDER_TRANSACTIONS_MAX })).items as T[];
  return {
    orderId,
    payme: await of<PaymeTransactionItem>('payme'),
    click: await of<ClickTransactionItem>('click'),
    uzum: await of<UzumTransactionItem>('uzum'),
  };
}

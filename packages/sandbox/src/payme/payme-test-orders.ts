import { InvalidOption } from 'payonce/internal/core/errors.js';

/** An order the merchant will accept a payment for: its `account` object and its amount in tiyin. */
export interface PaymeTestOrder {
  /** The account fields Payme sends (as your cabinet configures them), e.g. `{ order_id: "1001" }`. */
  readonly account: Readonly<Record<string, unknown>>;
  /** The order's amount, tiyin (1 sum = 100 tiyin), a positive integer. */
  readonly amount: number;
}

/** Fresh payable orders: a list (used in order, each once) or a function called once per order needed. */
export type PaymeOrderSource = readonly PaymeTestOrder[] | (() => PaymeTestOrder | Promise<PaymeTestOrder>);

/** `order` when it has account fields and a positive integer amount. @throws {InvalidOption} (`orders`) otherwise. */
export function checkedOrder(order: PaymeTestOrder, at: string): PaymeTestOrder {
  const account = order?.account;
  if (typeof account !== 'object' || account === null || Array.isArray(account) || Object.keys(account).length === 0) {
    throw new InvalidOption('orders', `${at}: account must be an object with at least one field`);
  }
  if (!Number.isSafeInteger(order.amount) || order.amount <= 0) {
    throw new InvalidOption('orders', `${at}: amount must be a positive integer (tiyin)`);
  }
  return order;
}

/**
 * A function giving the next fresh order of `source`, checked.
 * @throws {InvalidOption} (`orders`) the list holds fewer than `needed`, or an order has no account fields or no
 *   positive integer amount (the function's answers are checked when it is called).
 */
export function orderTaker(source: PaymeOrderSource, needed: number): () => Promise<PaymeTestOrder> {
  if (typeof source === 'function') {
    let n = 0;
    return async () => checkedOrder(await source(), `order ${++n}`);
  }
  if (!Array.isArray(source) || source.length < needed) {
    throw new InvalidOption('orders', `give at least ${needed} payable orders (a list or a function)`);
  }
  const list = source.map((order, i) => checkedOrder(order, `order ${i + 1}`));
  let next = 0;
  return async () => list[next++ % list.length] as PaymeTestOrder;
}

import { InvalidOption } from 'payonce/internal/core/errors.js';

/** An order the merchant will accept a Click payment for: its `merchant_trans_id` and its amount in tiyin. */
export interface ClickTestOrder {
  /** Click's `merchant_trans_id`: the order id as your shop gives it to Click. */
  readonly merchantTransId: string;
  /** The order's amount, tiyin (1 sum = 100 tiyin), a positive integer; sent as sums (`1000`, `1000.50`). */
  readonly amountTiyin: number;
}

/** Fresh payable orders: a list (used in order) or a function called once per order needed. */
export type ClickOrderSource = readonly ClickTestOrder[] | (() => ClickTestOrder | Promise<ClickTestOrder>);

/** `order` when it has an id and a positive integer amount. @throws {InvalidOption} (`orders`) otherwise. */
export function checkedClickOrder(order: ClickTestOrder, at: string): ClickTestOrder {
  if (typeof order?.merchantTransId !== 'string' || order.merchantTransId === '') {
    throw new InvalidOption('orders', `${at}: merchantTransId must be a non-empty string`);
  }
  if (!Number.isSafeInteger(order.amountTiyin) || order.amountTiyin <= 0) {
    throw new InvalidOption('orders', `${at}: amountTiyin must be a positive integer`);
  }
  return order;
}

/**
 * A function giving the next fresh order of `source`, checked.
 * @throws {InvalidOption} (`orders`) the list holds fewer than `needed`, or an order is malformed.
 */
export function clickOrderTaker(source: ClickOrderSource, needed: number): () => Promise<ClickTestOrder> {
  if (typeof source === 'function') {
    let n = 0;
    return async () => checkedClickOrder(await source(), `order ${++n}`);
  }
  if (!Array.isArray(source) || source.length < needed) {
    throw new InvalidOption('orders', `give at least ${needed} payable orders (a list or a function)`);
  }
  const list = source.map((order, i) => checkedClickOrder(order, `order ${i + 1}`));
  let next = 0;
  return async () => list[next++ % list.length] as ClickTestOrder;
}

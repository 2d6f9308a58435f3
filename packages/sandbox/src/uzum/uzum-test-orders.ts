import { InvalidOption } from 'payonce/internal/core/errors.js';

/** An order the merchant will accept an Uzum payment for: the `params` Uzum Bank sends, and the amount in tiyin. */
export interface UzumTestOrder {
  /** The payment attributes as your service configures them, e.g. `{ account: "100045" }`. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The order's amount, tiyin (1 sum = 100 tiyin), a positive integer. */
  readonly amountTiyin: number;
}

/** Fresh payable orders: a list (used in order) or a function called once per order needed. */
export type UzumOrderSource = readonly UzumTestOrder[] | (() => UzumTestOrder | Promise<UzumTestOrder>);

/** `order` when it has params and a positive integer amount. @throws {InvalidOption} (`orders`) otherwise. */
export function checkedUzumOrder(order: UzumTestOrder, at: string): UzumTestOrder {
  const params = order?.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params) || Object.keys(params).length === 0) {
    throw new InvalidOption('orders', `${at}: params must be an object with at least one field`);
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
export function uzumOrderTaker(source: UzumOrderSource, needed: number): () => Promise<UzumTestOrder> {
  if (typeof source === 'function') {
    let n = 0;
    return async () => checkedUzumOrder(await source(), `order ${++n}`);
  }
  if (!Array.isArray(source) || source.length < needed) {
    throw new InvalidOption('orders', `give at least ${needed} payable orders (a list or a function)`);
  }
  const list = source.map((order, i) => checkedUzumOrder(order, `order ${i + 1}`));
  let next = 0;
  return async () => list[next++ % list.length] as UzumTestOrder;
}

import type { Transition } from './transition.js';

/**
 * Status of an order (docs/design.md §6): `draft → awaiting_payment → paid → fulfilling → completed`, plus `cancelled`
 * (before payment) and `refunded` (after payment).
 */
export type OrderStatus = 'draft' | 'awaiting_payment' | 'paid' | 'fulfilling' | 'completed' | 'cancelled' | 'refunded';

/** Every order status, in forward order. */
export const ORDER_STATUSES: readonly OrderStatus[] = Object.freeze([
  'draft',
  'awaiting_payment',
  'paid',
  'fulfilling',
  'completed',
  'cancelled',
  'refunded',
]);

const ORDER_MOVES: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = Object.freeze({
  draft: ['awaiting_payment', 'paid', 'cancelled'],
  awaiting_payment: ['paid', 'cancelled'],
  paid: ['fulfilling', 'completed', 'refunded'],
  fulfilling: ['completed', 'refunded'],
  completed: ['refunded'],
  cancelled: [],
  refunded: [],
});

/** Statuses in which money was taken for the order: checkout answers "already paid". */
export const PAID_ORDER_STATUSES: readonly OrderStatus[] = Object.freeze(['paid', 'fulfilling', 'completed']);

/**
 * The forward-only order state machine, pure: `noop` when `from === to`, `move` when the table allows it,
 * `ignored` otherwise (e.g. `paid → awaiting_payment`, anything out of `cancelled`/`refunded`).
 * @see docs/design.md §6; STYLE pattern 9.
 * @example nextOrderStatus('awaiting_payment', 'paid') // { kind: 'move', to: 'paid' }
 */
export function nextOrderStatus(from: OrderStatus, to: OrderStatus): Transition<OrderStatus> {
  if (from === to) return { kind: 'noop' };
  return ORDER_MOVES[from].includes(to) ? { kind: 'move', to } : { kind: 'ignored', from, to };
}

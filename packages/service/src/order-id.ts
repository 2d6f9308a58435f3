import { ServiceError } from './service-error.js';

/** A caller-chosen order id: 1–64 characters of letters, digits, `.`, `_`, `:` and `-` (`Payments.createOrder`). */
const ORDER_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The caller-chosen order id of a `POST /orders` body (`orderId`), or `null` when absent (the service picks a UUID).
 * It is the id a provider's `account` names (Payme's `order_id`), so a merchant's own order number can be paid.
 * @throws {ServiceError} `INVALID_REQUEST_BODY` (400) when `orderId` is present but not 1–64 characters of
 *   `A–Z a–z 0–9 . _ : -` (the detail says so without quoting the value).
 * @see docs/service.md "HTTP contract".
 */
export function orderIdOf(body: Readonly<Record<string, unknown>>): string | null {
  const { orderId } = body;
  if (orderId === undefined) return null;
  if (typeof orderId === 'string' && ORDER_ID.test(orderId)) return orderId;
  throw new ServiceError(
    'INVALID_REQUEST_BODY',
    'orderId must be 1-64 characters of letters, digits, ".", "_", ":" and "-"',
  );
}

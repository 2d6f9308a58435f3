import type { OrderStatus } from './order-status.js';
import { PaymentError } from './payment-error.js';

/** Checkout was asked for an order that can no longer be paid (`cancelled`, `refunded`). Code `ORDER_NOT_PAYABLE`; HTTP 409. */
export class OrderNotPayable extends PaymentError {
  readonly orderId: string;
  readonly status: OrderStatus;
  constructor(orderId: string, status: OrderStatus) {
    super('ORDER_NOT_PAYABLE', `order ${orderId} is ${status} and cannot be paid`);
    this.orderId = orderId;
    this.status = status;
  }
}

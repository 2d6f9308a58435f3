import type { Verdict } from '../acceptance/check-runner.js';
import { isAccountCode } from './payme-codes.js';
import type { PaymeExchange } from './payme-rpc.js';
import type { PaymeTestOrder } from './payme-test-orders.js';
import { describe } from './payme-verdicts.js';

/** Whether the merchant refused the call with an account error (-31050 … -31099, HTTP 200). */
export function accountRefused(exchange: PaymeExchange): boolean {
  return exchange.status === 200 && isAccountCode(exchange.answer?.error?.code);
}

/**
 * The verdict that stops the battery: the merchant refuses `order` with its own amount (an account error), so the
 * order is not payable — most often an order a previous run paid and refunded. Every later check would fail for
 * that reason alone, so the battery reports this once instead.
 */
export function notPayable(order: PaymeTestOrder, exchange: PaymeExchange): Verdict {
  return {
    passed: false,
    halt: true,
    got:
      `order ${JSON.stringify(order.account)} is not payable: pass fresh orders ` +
      `(${exchange.method} with its own amount ${order.amount} answered ${describe(exchange)})`,
  };
}

import { credentialsRefused, ownAmountRefused } from '../acceptance/setup-mistakes.js';
import type { PaymeRunner } from './payme-battery-transaction.js';
import { isAccountCode, PAYME_CODES } from './payme-codes.js';
import type { PaymeExchange } from './payme-rpc.js';
import type { PaymeTestOrder } from './payme-test-orders.js';

/**
 * What the preflight's CheckPerformTransaction of `order` (its own amount and account, the configured key) says
 * about the setup, in one line, or null when nothing stops the battery: -32504 (the key is refused), -31001 (the
 * order's own amount is a wrong amount: most often sum given where Payme counts tiyin), or an account error
 * (-31050 … -31099) whose `data` names a field the call did not send (the account field is another).
 * @see fixtures payme/errors.json ("-32504", "-31001", "-31050..-31099": data = account sub-field name).
 */
export function diagnosePayme(order: PaymeTestOrder, exchange: PaymeExchange): string | null {
  const error = exchange.answer?.error;
  if (error === undefined || error === null) return null;
  if (error.code === PAYME_CODES.insufficientPrivilege) {
    return credentialsRefused(String(error.code), '--key (the cashbox key)');
  }
  if (error.code === PAYME_CODES.wrongAmount) {
    return ownAmountRefused(order.amount, String(error.code));
  }
  const sent = Object.keys(order.account);
  if (isAccountCode(error.code) && typeof error.data === 'string' && !sent.includes(error.data)) {
    return `the endpoint expects account field ${error.data}, not ${sent.join(', ')} (--account-field ${error.data})`;
  }
  return null;
}

/**
 * The one call before the Payme battery: CheckPerformTransaction of `order` with its own amount, which changes
 * nothing at the merchant. Stops the battery (`runner.stopped`) when the endpoint cannot be reached, answers 404 or
 * HTML, or {@link diagnosePayme} names a mistake; returns whether the battery may run.
 */
export function paymePreflight(runner: PaymeRunner, order: PaymeTestOrder): Promise<boolean> {
  const params = { amount: order.amount, account: order.account };
  return runner.preflight({ method: 'CheckPerformTransaction', params }, (exchange) => diagnosePayme(order, exchange));
}

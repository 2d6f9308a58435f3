import { credentialsRefused } from '../acceptance/setup-mistakes.js';
import type { UzumRunner } from './uzum-battery.js';
import { UZUM_CODES } from './uzum-codes.js';
import type { UzumTestOrder } from './uzum-test-orders.js';
import { uzumErrorCode } from './uzum-verdicts.js';
import type { UzumExchange } from './uzum-wire.js';

/**
 * What the preflight's /check says about the setup, in one line, or null: 10001 means the merchant refused the
 * configured Basic login and password.
 * @see fixtures uzum/protocol.json "error_codes" (10001), "authorization".
 */
export function diagnoseUzum(exchange: UzumExchange): string | null {
  return uzumErrorCode(exchange) === UZUM_CODES.accessDenied
    ? credentialsRefused(UZUM_CODES.accessDenied, '--login and --password')
    : null;
}

/**
 * The one call before the Uzum battery: /check of `order`'s params with the configured credentials, which changes
 * nothing at the merchant. Stops the battery (`runner.stopped`) when the webhooks cannot be reached, answer 404 or
 * HTML, or refuse the credentials; returns whether the battery may run. (An amount in sum shows later, at the first
 * /create of the order itself.)
 */
export function uzumPreflight(runner: UzumRunner, order: UzumTestOrder): Promise<boolean> {
  return runner.preflight({ operation: 'check', fields: { params: order.params } }, diagnoseUzum);
}

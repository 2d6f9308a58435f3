import { credentialsRefused } from '../acceptance/setup-mistakes.js';
import type { ClickRunner } from './click-battery.js';
import { CLICK_CODES } from './click-codes.js';
import type { ClickTestOrder } from './click-test-orders.js';
import { clickError } from './click-verdicts.js';
import { type ClickExchange, clickAmountOf } from './click-wire.js';

/**
 * What the preflight's Prepare says about the setup, in one line, or null: -1 means the merchant refused the
 * signature made with the configured secret key.
 * @see https://docs.click.uz/en/click-api-error/ (-1 "SIGN CHECK FAILED!"); fixtures click/protocol.json.
 */
export function diagnoseClick(exchange: ClickExchange): string | null {
  return clickError(exchange) === CLICK_CODES.signCheckFailed
    ? credentialsRefused(`${CLICK_CODES.signCheckFailed} SIGN CHECK FAILED`, '--secret-key (the service SECRET_KEY)')
    : null;
}

/**
 * The one call before the Click battery: a Prepare for `unknownOrder` (no order has it, so nothing is prepared),
 * signed with the secret key, at `order`'s amount. Stops the battery (`runner.stopped`) when the Prepare URL cannot
 * be reached, answers 404 or HTML, or refuses the signature; returns whether the battery may run. (An amount in sum
 * shows later, at the first Prepare of the order itself.)
 */
export function clickPreflight(
  runner: ClickRunner,
  order: ClickTestOrder,
  unknownOrder: string,
  clickTransId: number,
): Promise<boolean> {
  const spec = { action: 0, clickTransId, merchantTransId: unknownOrder, amount: clickAmountOf(order.amountTiyin) };
  return runner.preflight(spec, diagnoseClick);
}

import { createHash } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { systemClock } from '../../core/clock.js';
import { InvalidOption } from '../../core/errors.js';

/** Options of {@link clickMerchantAuth}. */
export interface ClickMerchantAuthOptions {
  /** Your `merchant_user_id` from Click (a positive integer). */
  readonly merchantUserId: number;
  /** The service's `secret_key`. */
  readonly secretKey: string;
  /** The UNIX time to sign, in whole SECONDS (10 digits). @default now, from `clock` */
  readonly timestampSec?: number;
  /** Time source when `timestampSec` is not given, epoch ms. @default systemClock */
  readonly clock?: Clock;
}

/**
 * The value of the `Auth` header of Click's Merchant API (invoice and payment status checks, reversals):
 * `merchant_user_id:digest:timestamp`, where `timestamp` is UNIX seconds and `digest` is the lower-case hex
 * SHA-1 of `timestamp + secret_key` (the decimal timestamp followed by the key). Not used by Prepare/Complete.
 * @throws {InvalidOption} (`merchantUserId`) not a positive integer; (`secretKey`) empty; (`timestampSec`) not a
 *   non-negative integer.
 * @see https://docs.click.uz/en/merchant-api-request/ ("Authentication"); fixtures click/protocol.json
 *   "merchant_api_auth_note".
 * @example
 * const headers = { Accept: 'application/json', Auth: clickMerchantAuth({ merchantUserId: 12345, secretKey }) };
 * await fetch(`https://api.click.uz/v2/merchant/payment/status/${serviceId}/${paymentId}`, { headers });
 */
export function clickMerchantAuth(options: ClickMerchantAuthOptions): string {
  const { merchantUserId, secretKey } = options;
  if (!Number.isSafeInteger(merchantUserId) || merchantUserId <= 0) {
    throw new InvalidOption('merchantUserId', 'must be a positive integer');
  }
  if (typeof secretKey !== 'string' || secretKey === '')
    throw new InvalidOption('secretKey', 'must be a non-empty string');
  const timestamp = options.timestampSec ?? Math.floor((options.clock ?? systemClock).now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new InvalidOption('timestampSec', 'must be a non-negative integer of seconds');
  }
  const digest = createHash('sha1').update(`${timestamp}${secretKey}`, 'utf8').digest('hex');
  return `${merchantUserId}:${digest}:${timestamp}`;
}

import { createHash, timingSafeEqual } from 'node:crypto';

/** The form fields the signature covers, as received (strings, never re-formatted). */
export interface ClickSignedFields {
  readonly click_trans_id: string;
  readonly service_id: string;
  readonly merchant_trans_id: string;
  /** Complete only; `undefined` in a Prepare. */
  readonly merchant_prepare_id?: string;
  readonly amount: string;
  readonly action: string;
  readonly sign_time: string;
}

/**
 * The `sign_string` Click computes: lower-case hex MD5 of `click_trans_id + service_id + secretKey +
 * merchant_trans_id + [merchant_prepare_id, Complete (action 1) only] + amount + action + sign_time`, over the
 * values exactly as sent (`1000` and `1000.00` sign differently).
 * @see https://docs.click.uz/en/click-api-request/ (Prepare formula); fixtures click/protocol.json
 *   "complete_sign_string" (click-llc/click-integration-php and -django put merchant_prepare_id after
 *   merchant_trans_id); fixtures click/signature/01…05.
 */
export function clickSignString(fields: ClickSignedFields, secretKey: string): string {
  const prepareId = fields.action === '1' ? (fields.merchant_prepare_id ?? '') : '';
  const text =
    fields.click_trans_id +
    fields.service_id +
    secretKey +
    fields.merchant_trans_id +
    prepareId +
    fields.amount +
    fields.action +
    fields.sign_time;
  return createHash('md5').update(text, 'utf8').digest('hex');
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether `signString` is the {@link clickSignString} of `fields` under one of `secretKeys` (compared in constant
 * time on digests, case-insensitively on the hex).
 */
export function isClickSigned(fields: ClickSignedFields, signString: string, secretKeys: readonly string[]): boolean {
  const presented = digest(signString.toLowerCase());
  let found = false;
  for (const key of secretKeys) {
    if (timingSafeEqual(presented, digest(clickSignString(fields, key)))) found = true;
  }
  return found;
}

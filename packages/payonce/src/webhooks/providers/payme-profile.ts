import { PayloadReader } from './payload-reader.js';
import type { ExtractInput, ProviderEvent, ProviderProfile } from './provider-event.js';

/** Options of {@link paymeProfile}. */
export interface PaymeProfileOptions {
  /** Field of `params.account` holding the merchant reference (configured in the Payme cabinet). @default 'order_id' */
  accountKey?: string;
}

/** Merchant API methods that change state; each call is a receipt keyed by transaction id + method. */
const MUTATING = new Set(['CreateTransaction', 'PerformTransaction', 'CancelTransaction']);
const READ_ONLY = new Set(['CheckPerformTransaction', 'CheckTransaction', 'GetStatement', 'ChangePassword']);
const WITH_ID = new Set(['CreateTransaction', 'PerformTransaction', 'CancelTransaction', 'CheckTransaction']);
const WITH_AMOUNT = new Set(['CheckPerformTransaction', 'CreateTransaction']);

/**
 * Payme (Paycom) Merchant API JSON-RPC calls `{ method, params }`. Amounts are integer minor units (tiyin,
 * 1 sum = 100 tiyin), currency always UZS; times are 13-digit epoch milliseconds. Payme has no event id, so the
 * receipt key is `params.id` (the 24-character Payme transaction id) + method: a repeated `PerformTransaction`
 * replays the stored answer (the docs require the same `perform_time`), and `CancelTransaction` (a refund after
 * perform) is never a duplicate of it. Read-only methods get `key: null`: they must reflect current state.
 * @throws {MalformedWebhookPayload} unknown method, missing `params`, `params.id`, `amount` or `time` where the
 * method requires them, non-integer amounts.
 * @see https://developer.help.paycom.uz (Merchant API methods, data types); fixtures payme/rpc,
 * payme/idempotency-rules.json.
 */
export function paymeProfile(options: PaymeProfileOptions = {}): ProviderProfile {
  const accountKey = options.accountKey ?? 'order_id';
  const read = new PayloadReader('payme');

  function extract({ rawBody }: ExtractInput): ProviderEvent {
    const body = read.json(rawBody);
    const method = read.string(body.method, 'method');
    if (!MUTATING.has(method) && !READ_ONLY.has(method)) read.fail('method', 'is not a Payme Merchant API method');
    const params = read.object(body.params, 'params');
    const objectId = WITH_ID.has(method) ? read.string(params.id, 'params.id') : null;
    const amountMinor = WITH_AMOUNT.has(method) ? read.integer(params.amount, 'params.amount', 1) : null;
    const account = WITH_AMOUNT.has(method) ? read.object(params.account, 'params.account') : null;
    const occurredAtMs = method === 'CreateTransaction' ? read.epochMs(params.time, 'params.time') : null;
    return {
      provider: read.provider,
      eventId: null,
      eventType: method,
      objectId,
      paymentId: objectId,
      amountMinor,
      currency: amountMinor === null ? null : 'UZS',
      merchantReference: account ? read.optionalId(account[accountKey], `params.account.${accountKey}`) : null,
      occurredAtMs,
      key: MUTATING.has(method) && objectId !== null ? read.compositeKey(objectId, method, 'params.id') : null,
      payload: body,
    };
  }
  return { provider: read.provider, amountUnits: 'minor', extract };
}

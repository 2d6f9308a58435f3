import { parseClickForm } from '../verify/click-scheme.js';
import { PayloadReader } from './payload-reader.js';
import type { ExtractInput, ProviderEvent, ProviderProfile } from './provider-event.js';

/**
 * Click SHOP API Prepare (`action=0`) and Complete (`action=1`) form posts. `amount` is a decimal string in
 * major units (soums, e.g. `1000` or `1000.00`), converted exactly to tiyin; currency UZS. `click_trans_id`
 * identifies one payment attempt and is the object id; `click_paydoc_id` is the payment id shown to the
 * customer; `merchant_trans_id` is the merchant reference. No event id: the receipt key is
 * `click_trans_id` + `prepare`/`complete`, so a Complete is never a duplicate of its Prepare. `sign_time` has no
 * time zone, so `occurredAtMs` is `null`.
 * @throws {MalformedWebhookPayload} not a UTF-8 form with unique fields, missing fields (Click error -8),
 * action other than 0/1 (-3), amount that is not a decimal with at most 2 fraction digits (-2).
 * @see https://docs.click.uz/en/click-api-request/; fixture click/protocol.json.
 */
export function clickProfile(): ProviderProfile {
  const read = new PayloadReader('click');

  function extract({ rawBody }: ExtractInput): ProviderEvent {
    read.text(rawBody);
    const fields = parseClickForm(rawBody) ?? read.fail('body', 'must be a form with each field once');
    const field = (name: string): string => read.string(fields.get(name), name);
    const action = field('action');
    const eventType = action === '0' ? 'prepare' : action === '1' ? 'complete' : read.fail('action', 'must be 0 or 1');
    const objectId = field('click_trans_id');
    if (action === '1') field('merchant_prepare_id');
    const payload = Object.fromEntries(fields);
    return {
      provider: read.provider,
      eventId: null,
      eventType,
      objectId,
      paymentId: fields.get('click_paydoc_id') || null,
      amountMinor: read.decimalAmount(field('amount'), 'amount', 'UZS'),
      currency: 'UZS',
      merchantReference: field('merchant_trans_id'),
      occurredAtMs: null,
      key: read.compositeKey(objectId, eventType, 'click_trans_id'),
      payload,
    };
  }
  return { provider: read.provider, amountUnits: 'major', extract };
}

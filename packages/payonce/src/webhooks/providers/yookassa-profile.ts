import { PayloadReader } from './payload-reader.js';
import type { ExtractInput, ProviderEvent, ProviderProfile } from './provider-event.js';

/** Options of {@link yookassaProfile}. */
export interface YookassaProfileOptions {
  /** `object.metadata` key holding the merchant reference. @default 'order_id' */
  metadataKey?: string;
}

/**
 * YooKassa HTTP notifications `{ type: "notification", event: "<object>.<status>", object }`. Amounts are
 * decimal strings in major units (`{"value": "2.00", "currency": "RUB"}`), converted exactly to minor units.
 * YooKassa sends no event id and no signature: the receipt key is `object.id` + event, so `refund.succeeded`
 * (a refund object, its own id) is never a duplicate of `payment.succeeded`; `paymentId` is the payment's id for
 * `payment.*` and `object.payment_id` for `refund.*`. `occurredAtMs` is `object.created_at` (the notification
 * itself carries no time). Authenticate by IP allow-list and re-read the object from the API before acting.
 * @throws {MalformedWebhookPayload} `type` other than `notification`, missing `event` / `object.id`, bad amount.
 * @see https://yookassa.ru/developers/using-api/webhooks; fixtures yookassa/.
 */
export function yookassaProfile(options: YookassaProfileOptions = {}): ProviderProfile {
  const metadataKey = options.metadataKey ?? 'order_id';
  const read = new PayloadReader('yookassa');

  function extract({ rawBody }: ExtractInput): ProviderEvent {
    const body = read.json(rawBody);
    if (read.string(body.type, 'type') !== 'notification') read.fail('type', 'must be "notification"');
    const eventType = read.string(body.event, 'event');
    const object = read.object(body.object, 'object');
    const objectId = read.string(object.id, 'object.id');
    const amount = read.optionalObject(object.amount, 'object.amount');
    const currency = amount ? read.currency(amount.currency, 'object.amount.currency') : null;
    const amountMinor = amount && currency ? read.decimalAmount(amount.value, 'object.amount.value', currency) : null;
    const paymentId = eventType.startsWith('payment.')
      ? objectId
      : eventType.startsWith('refund.')
        ? read.string(object.payment_id, 'object.payment_id')
        : null;
    const metadata = read.optionalObject(object.metadata, 'object.metadata');
    return {
      provider: read.provider,
      eventId: null,
      eventType,
      objectId,
      paymentId,
      amountMinor,
      currency,
      merchantReference: metadata ? read.optionalId(metadata[metadataKey], `object.metadata.${metadataKey}`) : null,
      occurredAtMs: object.created_at === undefined ? null : read.isoTimeAsMs(object.created_at, 'object.created_at'),
      key: read.compositeKey(objectId, eventType, 'object.id'),
      payload: body,
    };
  }
  return { provider: read.provider, amountUnits: 'major', extract };
}

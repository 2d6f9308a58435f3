import { PayloadReader } from 'payonce/internal/webhooks/providers/payload-reader.js';
import type {
  ExtractInput,
  ProviderEvent,
  ProviderProfile,
} from 'payonce/internal/webhooks/providers/provider-event.js';
import { standardWebhooksProfile } from 'payonce/internal/webhooks/providers/standard-webhooks-profile.js';

/** Options of {@link sandboxStandardWebhooksProfile}. */
export interface SandboxStandardWebhooksProfileOptions {
  /** Provider name of intake receipts and journal rows. @default 'standard-webhooks' */
  provider?: string;
  /** `metadata` key holding the merchant reference. @default 'merchant_reference' */
  metadataKey?: string;
}

/**
 * The Standard Webhooks events of a Stripe-shaped provider (the sandbox, docs/sandbox.md "Webhooks"): body
 * `{ type, timestamp (ISO 8601), data: <PaymentIntent or Charge object> }`, event id in `webhook-id`. On top of
 * `standardWebhooksProfile` (id, type, time, receipt key `(provider, webhook-id)`) it reads the money fields of
 * `data` exactly as `stripeProfile` reads `data.object`: `amount` already in integer minor units (a fraction,
 * string or unsafe number is refused), `currency` upper-cased, `paymentId` = the PaymentIntent id (`data.id` of a
 * `payment_intent`, `data.payment_intent` of a `charge`), merchant reference = `data.metadata.<metadataKey>`.
 * @throws {MalformedWebhookPayload} (from `extract`) no `webhook-id`, no `type`, a mistyped money field.
 * @see https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md; Stripe
 *   PaymentIntent and Charge objects (docs.stripe.com/api/payment_intents/object, /api/charges/object).
 * @example const event = sandboxStandardWebhooksProfile().extract({ rawBody, headers });
 */
export function sandboxStandardWebhooksProfile(options: SandboxStandardWebhooksProfileOptions = {}): ProviderProfile {
  const base = standardWebhooksProfile({ provider: options.provider ?? 'standard-webhooks' });
  const metadataKey = options.metadataKey ?? 'merchant_reference';
  const read = new PayloadReader(base.provider);

  function extract(input: ExtractInput): ProviderEvent {
    const event = base.extract(input);
    const body = read.object(event.payload, 'body');
    const data = read.optionalObject(body.data, 'data');
    if (data === null) return event;
    const kind = read.optionalString(data.object, 'data.object');
    const pi = data.payment_intent;
    const paymentId =
      kind === 'payment_intent'
        ? event.objectId
        : typeof pi === 'object' && pi !== null
          ? read.optionalString(read.object(pi, 'data.payment_intent').id, 'data.payment_intent.id')
          : read.optionalString(pi, 'data.payment_intent');
    const amountMinor = read.optionalInteger(data.amount, 'data.amount');
    const currency = data.currency == null ? null : read.currency(data.currency, 'data.currency');
    const metadata = read.optionalObject(data.metadata, 'data.metadata');
    const merchantReference = metadata
      ? read.optionalString(metadata[metadataKey], `data.metadata.${metadataKey}`)
      : null;
    return { ...event, paymentId, amountMinor, currency, merchantReference };
  }
  return { provider: base.provider, amountUnits: 'minor', extract };
}

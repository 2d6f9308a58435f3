import {
  acknowledgingProfile as acknowledgeEvery,
  type EventIdReader,
  NO_EVENT_TYPE,
} from 'payonce/internal/webhooks/providers/acknowledging-profile.js';
import { MalformedWebhookPayload } from 'payonce/internal/webhooks/providers/malformed-webhook-payload.js';
import type { ProviderProfile } from 'payonce/internal/webhooks/providers/provider-event.js';
import { PAYMENT_EVENT_TYPES, paymentObjectProblem, refundedMinorOf } from './payment-event-of.js';

export { type EventIdReader, NO_EVENT_TYPE };

/**
 * The reference service's profile wrapper (issue 7, "each valid delivery is accepted … exactly once"): the
 * general `acknowledgingProfile` of `payonce/webhooks` with the payment event types the service acts on
 * (`PAYMENT_EVENT_TYPES`) read strictly — and such an event whose object is not of the kind its type names
 * (`PAYMENT_EVENT_OBJECTS`: a `refund` in a `payment_intent.succeeded`), a `charge.refunded` whose
 * `amount_refunded` is not a non-negative integer, or naming neither a payment id nor a
 * merchant reference, refused (`MalformedWebhookPayload`, 400, no receipt): the service cannot act on it and a human must look.
 * Every other authentic delivery with an event id is acknowledged once with no business action.
 * @throws {MalformedWebhookPayload} from `extract`, as listed.
 * @example paymentEventProfile(stripeProfile(), (body) => (typeof body.id === 'string' ? body.id : null))
 */
export function paymentEventProfile(base: ProviderProfile, idOf: EventIdReader): ProviderProfile {
  return acknowledgeEvery(base, {
    eventId: idOf,
    strictTypes: Object.keys(PAYMENT_EVENT_TYPES),
    check(event) {
      const wrongObject = paymentObjectProblem(event);
      if (wrongObject !== null) throw new MalformedWebhookPayload(base.provider, 'data.object', wrongObject);
      if (event.eventType === 'charge.refunded') {
        try {
          refundedMinorOf(event.payload);
        } catch {
          throw new MalformedWebhookPayload(base.provider, 'amount_refunded', 'must be a non-negative integer');
        }
      }
      if (event.paymentId === null && event.merchantReference === null) {
        throw new MalformedWebhookPayload(
          base.provider,
          'data.object',
          `of a ${event.eventType} event must name its payment (payment intent) or a merchant reference`,
        );
      }
    },
  });
}

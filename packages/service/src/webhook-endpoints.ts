import { InvalidPaymentEvent } from 'payonce/internal/payments/invalid-payment-event.js';
import type { ProviderPaymentEvent } from 'payonce/internal/payments/provider-payment-event.js';
import type { WebhookEndpoint, WebhookHandler } from 'payonce/internal/webhooks/intake.js';
import { WebhookDecline } from 'payonce/internal/webhooks/intake-decline.js';
import { stripeProfile } from 'payonce/internal/webhooks/providers/stripe-profile.js';
import { headerValue } from 'payonce/internal/webhooks/verify/headers.js';
import type { SignatureScheme } from 'payonce/internal/webhooks/verify/signature-scheme.js';
import { standardWebhooksScheme } from 'payonce/internal/webhooks/verify/standard-webhooks-scheme.js';
import { stripeScheme } from 'payonce/internal/webhooks/verify/stripe-scheme.js';
import { isObject } from './json-body.js';
import { paymentEventOf } from './payment-event-of.js';
import { NO_EVENT_TYPE, paymentEventProfile } from './payment-event-profile.js';
import { sandboxStandardWebhooksProfile } from './sandbox-standard-webhooks-profile.js';
import type { ServiceContext } from './service-context.js';
import type { ServiceOptions } from './service-options.js';
import type { ServiceWebhookEndpoint } from './service-overrides.js';

function rejectionOf(result: unknown): string | null {
  if (!isObject(result) || result.decision !== 'rejected') return null;
  return typeof result.reason === 'string' ? result.reason : 'rejected';
}

/**
 * Builds the webhook endpoints: Stripe events on `stripe`, the same provider's Standard Webhooks events on
 * `standard-webhooks`, each only when its secret is configured.
 */
export function webhookEndpoints(ctx: ServiceContext, options: ServiceOptions): Record<string, WebhookEndpoint> {
  const apply =
    options.overrides?.applyPaymentEvent ??
    ((c: ServiceContext, event: ProviderPaymentEvent) => c.payments.applyProviderEvent(event));
  const schemeFor = (endpoint: ServiceWebhookEndpoint, byDefault: SignatureScheme) =>
    options.overrides?.signatureScheme ? options.overrides.signatureScheme(endpoint, byDefault) : byDefault;
  const handler: WebhookHandler = async (event) => {
    const paymentEvent: ProviderPaymentEvent | null = paymentEventOf(event, ctx.provider.name);
    if (paymentEvent === null) {
      const reason = event.eventType === NO_EVENT_TYPE ? 'no event type' : 'no handler for this event type';
      ctx.logger.info(
        { provider: event.provider, eventId: event.eventId, eventType: event.eventType, reason },
        'webhook acknowledged with no business action',
      );
      return { received: true, ignored: true, reason };
    }
    let result: unknown;
    try {
      result = await apply(ctx, paymentEvent);
    } catch (error) {
      if (error instanceof InvalidPaymentEvent) throw new WebhookDecline('invalid_payment_event', error.message);
      throw error;
    }
    const rejected = rejectionOf(result);
    if (rejected !== null) throw new WebhookDecline('payment_rejected', rejected);
    const decision = isObject(result) && typeof result.decision === 'string' ? result.decision : null;
    return { received: true, decision };
  };
  const { config } = ctx;
  const endpoints: Record<string, WebhookEndpoint> = {};
  if (config.stripeWebhookSecrets.length > 0) {
    endpoints.stripe = {
      profile: paymentEventProfile(stripeProfile(), (body) => (typeof body.id === 'string' ? body.id : null)),
      scheme: schemeFor(
        'stripe',
        stripeScheme({ secrets: config.stripeWebhookSecrets, toleranceSeconds: config.webhookToleranceSec }),
      ),
      handler,
    };
  }
  if (config.standardWebhooksSecrets.length > 0) {
    endpoints['standard-webhooks'] = {
      profile: paymentEventProfile(
        sandboxStandardWebhooksProfile(),
        (_body, headers) =>
          (headers && (headerValue(headers, 'svix-id') ?? headerValue(headers, 'webhook-id'))) ?? null,
      ),
      scheme: schemeFor(
        'standard-webhooks',
        standardWebhooksScheme({
          secrets: config.standardWebhooksSecrets,
          toleranceSeconds: config.webhookToleranceSec,
        }),
      ),
      handler,
    };
  }
  return endpoints;
}

import type { Transaction } from 'kysely';
import { InvalidPaymentEvent } from 'payonce/internal/payments/invalid-payment-event.js';
import type { ProviderPaymentEvent } from 'payonce/internal/payments/provider-payment-event.js';
import type { WebhookEndpoint, WebhookHandler } from 'payonce/internal/webhooks/intake.js';
import { WebhookDecline } from 'payonce/internal/webhooks/intake-decline.js';
import type { TransactionalWebhookEndpoint } from 'payonce/internal/webhooks/intake-options.js';
import type { ProviderEvent } from 'payonce/internal/webhooks/providers/provider-event.js';
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
/**
 * True when the service's webhook endpoints are one-commit (`transaction: true`), under the intake's group commit:
 * `groupCommit` is configured (`payonce serve --group-commit`), the intake's receipts are in the service's SQL store
 * (not Redis, not an overridden guard) and no override replaces the event step (an override may write outside the
 * delivery's transaction, which would then wait on it). One transaction per delivery holds the intake receipt, the
 * payment's transition, its outbox job and journal row and the delivery's journal row, and concurrent deliveries share
 * the commit (docs/design.md §11 "Group commit"). The intake's receipt is the event's only one
 * (`applyProviderEvent`'s `receiptHeld`): it commits with the transition, so a redelivery finds it.
 */
export function oneCommitWebhooks(ctx: ServiceContext, options: ServiceOptions): boolean {
  return (
    ctx.config.groupCommit && ctx.intakeGuard.store === ctx.store && options.overrides?.applyPaymentEvent === undefined
  );
}

/** A webhook endpoint of the service: the default mode, or one-commit (see {@link oneCommitWebhooks}). */
export type ServiceEndpoint = WebhookEndpoint | TransactionalWebhookEndpoint<Transaction<unknown>>;

/** The event step: the payment event applied in the delivery's transaction `tx` (one-commit mode) or its own. */
type ApplyEvent = (event: ProviderPaymentEvent, tx: Transaction<unknown> | undefined) => Promise<unknown>;

/**
 * Builds the webhook endpoints: Stripe events on `stripe`, the same provider's Standard Webhooks events on
 * `standard-webhooks`, each only when its secret is configured; one-commit when {@link oneCommitWebhooks}.
 */
export function webhookEndpoints(ctx: ServiceContext, options: ServiceOptions): Record<string, ServiceEndpoint> {
  const override = options.overrides?.applyPaymentEvent;
  const apply: ApplyEvent =
    override === undefined
      ? // One-commit: the intake's receipt of this delivery is in `tx` and commits with the event: no second receipt.
        (event, tx) => ctx.payments.applyProviderEvent(event, tx, { receiptHeld: tx !== undefined })
      : (event) => override(ctx, event);
  const oneCommit = oneCommitWebhooks(ctx, options);
  const schemeFor = (endpoint: ServiceWebhookEndpoint, byDefault: SignatureScheme) =>
    options.overrides?.signatureScheme ? options.overrides.signatureScheme(endpoint, byDefault) : byDefault;
  const handle = async (event: ProviderEvent, tx: Transaction<unknown> | undefined): Promise<unknown> => {
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
      result = await apply(paymentEvent, tx);
    } catch (error) {
      if (error instanceof InvalidPaymentEvent) throw new WebhookDecline('invalid_payment_event', error.message);
      throw error;
    }
    const rejected = rejectionOf(result);
    if (rejected !== null) throw new WebhookDecline('payment_rejected', rejected);
    const decision = isObject(result) && typeof result.decision === 'string' ? result.decision : null;
    return { received: true, decision };
  };
  const handler: WebhookHandler = (event) => handle(event, undefined);
  type OneCommitMode = Pick<
    TransactionalWebhookEndpoint<Transaction<unknown>>,
    'transaction' | 'handler' | 'prepareBatch'
  >;
  const oneCommitMode: OneCommitMode = {
    transaction: true,
    handler: (event, context) => handle(event, context.tx),
    // A group-commit batch's orders and attempts locked in two statements, not two a delivery (PostgreSQL).
    prepareBatch: (tx, events) =>
      ctx.payments.prelockProviderEvents(
        events.flatMap((event) => paymentEventOf(event, ctx.provider.name) ?? []),
        tx,
      ),
  };
  const modeOf = () => (oneCommit ? oneCommitMode : { handler });
  const { config } = ctx;
  const endpoints: Record<string, ServiceEndpoint> = {};
  if (config.stripeWebhookSecrets.length > 0) {
    endpoints.stripe = {
      profile: paymentEventProfile(stripeProfile(), (body) => (typeof body.id === 'string' ? body.id : null)),
      scheme: schemeFor(
        'stripe',
        stripeScheme({ secrets: config.stripeWebhookSecrets, toleranceSeconds: config.webhookToleranceSec }),
      ),
      ...modeOf(),
    } as ServiceEndpoint;
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
      ...modeOf(),
    } as ServiceEndpoint;
  }
  return endpoints;
}

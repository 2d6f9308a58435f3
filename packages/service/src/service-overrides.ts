import type { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import type { CheckoutResult } from 'payonce/internal/payments/payments.js';
import type { ProviderPaymentEvent } from 'payonce/internal/payments/provider-payment-event.js';
import type { SignatureScheme } from 'payonce/internal/webhooks/verify/signature-scheme.js';
import type { ServiceContext } from './service-context.js';

/** The two webhook endpoints of the reference service (`POST /webhooks/<endpoint>`). */
export type ServiceWebhookEndpoint = 'stripe' | 'standard-webhooks';

/**
 * The composition seam of `createService`: each hook replaces one step of the reference service, so tests and
 * `payonce storm` can build variants (including deliberately faulty ones) without copying the service. Unset
 * hooks keep the default.
 */
export interface ServiceOverrides {
  /** Replaces the checkout step (default: payments.openCheckout). */
  checkout?: (ctx: ServiceContext, orderId: string, principal: string) => Promise<CheckoutResult>;
  /**
   * Replaces what a verified payment event does (default: payments.applyProviderEvent). A returned
   * `{ decision: 'rejected', reason }` (an `EventResult`) is answered as a decline, like the default's.
   */
  applyPaymentEvent?: (ctx: ServiceContext, event: ProviderPaymentEvent) => Promise<unknown>;
  /** Replaces the signature scheme of a webhook endpoint (default: stripeScheme / standardWebhooksScheme). */
  signatureScheme?: (endpoint: ServiceWebhookEndpoint, byDefault: SignatureScheme) => SignatureScheme;
  /** Replaces the intake's receipt guard (default: IdempotencyGuard on the SQL store, or Redis with REDIS_URL). */
  intakeGuard?: IdempotencyGuard;
}

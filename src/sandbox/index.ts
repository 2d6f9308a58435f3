/**
 * `payonce/sandbox`: a payment provider simulator over HTTP with fault injection (docs/design.md §8), and a
 * `PaymentProvider` client for it. Loopback only; for tests, the demo and `payonce storm`.
 */
export { createSandbox, type Sandbox } from './create-sandbox.js';
export type { DeliveryKind, DeliveryRecord } from './delivery-record.js';
export {
  type AmountTamper,
  checkPaymentPlan,
  DEFAULT_PAYMENT_PLAN,
  type PaymentOutcome,
  type PaymentPlan,
  type ResolvedPaymentPlan,
  type ResponseFault,
} from './payment-plan.js';
export { STANDARD_WEBHOOKS_RETRY_SCHEDULE_MS } from './retry-schedule.js';
export { SandboxClient, type SandboxClientOptions } from './sandbox-client.js';
export { SandboxClientError, type SandboxClientErrorCode } from './sandbox-client-error.js';
export type { ChargeLedger, OrderLedger, PlanMatch, SandboxControls, SandboxLogFilter } from './sandbox-controls.js';
export type { EventVariants, SandboxEvent } from './sandbox-event.js';
export type { SandboxOptions } from './sandbox-options.js';
export type { SandboxPayment, SandboxPaymentStatus } from './sandbox-payment.js';
export { SANDBOX_API_VERSION } from './stripe-objects.js';
export { newSigningSecret, type SandboxSigning, type SandboxSigningScheme, signedHeaders } from './webhook-signer.js';

/**
 * `payonce/sandbox`: a Stripe-compatible payment provider simulator over HTTP with fault injection (docs/design.md §8) that
 * the official `stripe` SDK drives unchanged, and a `PaymentProvider` client for it. Loopback only; for tests, the
 * demo, `payonce sandbox` and `payonce storm`.
 */
export type { RequestRecord } from './api-request.js';
export { createSandbox, type Sandbox } from './create-sandbox.js';
export {
  checkAmount,
  currencyDecimals,
  MINIMUM_AMOUNTS,
  THREE_DECIMAL_CURRENCIES,
  ZERO_DECIMAL_CURRENCIES,
} from './currencies.js';
export { DEFAULT_ENDPOINT_EVENTS } from './event-log.js';
export type { FaultPhase, FaultRecord } from './faults/fault-ledger.js';
export { type FaultRuleInput, type FaultRulesFile, faultRulesFileOf } from './faults/fault-rules.js';
export { FAULT_NAMES, type FaultSet, parseFaults } from './faults/fault-spec.js';
export { IDEMPOTENCY_KEY_TTL_MS } from './idempotency-keys.js';
export {
  type AmountTamper,
  checkPaymentPlan,
  DEFAULT_PAYMENT_PLAN,
  type PaymentOutcome,
  type PaymentPlan,
  type ResolvedPaymentPlan,
  type ResponseFault,
} from './payment-plan.js';
export {
  RETRY_SCHEDULES,
  STANDARD_WEBHOOKS_RETRY_SCHEDULE_MS,
  STRIPE_LIVE_RETRY_SCHEDULE_MS,
  STRIPE_TEST_RETRY_SCHEDULE_MS,
} from './retry-schedule.js';
export { SandboxClient, type SandboxClientOptions } from './sandbox-client.js';
export { SandboxClientError, type SandboxClientErrorCode } from './sandbox-client-error.js';
export type {
  ChargeLedger,
  OrderCharge,
  OrderLedger,
  PlanMatch,
  SandboxControls,
  SandboxLedger,
  SandboxLogFilter,
} from './sandbox-controls.js';
export type { SandboxEvent } from './sandbox-event.js';
export type { SandboxEndpointOption, SandboxOptions } from './sandbox-options.js';
export type {
  SandboxCharge,
  SandboxPayment,
  SandboxPaymentFlow,
  SandboxPaymentStatus,
  SandboxRefund,
} from './sandbox-payment.js';
export type { DeliveryKind, SentDelivery } from './sent-delivery.js';
export { SANDBOX_API_VERSION } from './stripe-objects.js';
export { type CardOutcome, TEST_CARDS, type TestCard } from './test-cards.js';
export type { RegisteredEndpoint } from './webhook-endpoints.js';
export { newSigningSecret, type SandboxSigning, type SandboxSigningScheme, signedHeaders } from './webhook-signer.js';
export { SANDBOX_API_KEY } from './wire/api-key.js';
export { StripeApiError, type StripeErrorType } from './wire/stripe-api-error.js';
export { encodeStripeForm, FORM_LIMITS } from './wire/stripe-form.js';

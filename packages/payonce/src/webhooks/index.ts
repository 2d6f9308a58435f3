/**
 * `payonce/webhooks`: signature schemes (verify on the raw bytes), provider profiles (event id, type, object id,
 * amount in minor units, currency, merchant reference), the intake pipeline with provider acknowledgements and the
 * delivery journal with redaction. Each framework route is its own entry: `payonce/webhooks/fastify`,
 * `payonce/webhooks/express`, `payonce/webhooks/hono`.
 * @see docs/design.md §5.
 */

export type { GroupCommitOptions } from '../stores/sql/group-commit-options.js';
export {
  type Housekeeping,
  type HousekeepingOptions,
  type HousekeepingReport,
  type ReceiptRetention,
  runHousekeeping,
  startHousekeeping,
} from './housekeeping.js';
export {
  type AnyWebhookEndpointModes,
  createWebhookIntake,
  type StackWebhookContext,
  type StackWebhookEndpoint,
  type TransactionalWebhookContext,
  type TransactionalWebhookEndpoint,
  type TransactionalWebhookHandler,
  type WebhookContext,
  type WebhookEndpoint,
  type WebhookEndpointBase,
  type WebhookEndpointFor,
  type WebhookEndpointModes,
  type WebhookEndpoints,
  type WebhookEndpointTransaction,
  type WebhookHandler,
  type WebhookIntake,
  type WebhookIntakeOptions,
} from './intake.js';
export { type Acknowledgement, type IntakeRequest, jsonAcknowledgement } from './intake-acknowledgement.js';
export { CLICK_ERRORS, clickAcknowledgement } from './intake-click.js';
export { WebhookDecline } from './intake-decline.js';
export type { IntakeEventName, IntakeEvents, IntakeListener } from './intake-events.js';
export { PAYME_ERRORS, paymeAcknowledgement } from './intake-payme.js';
export { DELIVERIES_TABLE, type DeliveriesDatabase, type DeliveriesTable } from './journal/deliveries-table.js';
export type { DeliveryJournal, PaymentLookup } from './journal/delivery-journal.js';
export {
  DELIVERY_DECISIONS,
  type DeliveryDecision,
  type DeliveryOutcome,
  type DeliveryRecord,
} from './journal/delivery-record.js';
export { MemoryDeliveryJournal } from './journal/memory-delivery-journal.js';
export {
  createRedactor,
  DEFAULT_REDACT_PATHS,
  REDACTED,
  type RedactionOptions,
  type Redactor,
} from './journal/redact.js';
export { type KyselyHolder, SqlDeliveryJournal } from './journal/sql-delivery-journal.js';
export {
  type AcknowledgingProfileOptions,
  acknowledgingProfile,
  type EventIdReader,
  NO_EVENT_TYPE,
} from './providers/acknowledging-profile.js';
export { clickProfile } from './providers/click-profile.js';
export { EVENT_FIELD_LIMITS } from './providers/event-limits.js';
export {
  type StripeCharge,
  type StripeCheckoutSession,
  type StripeCustomer,
  type StripeInvoice,
  type StripeMetadata,
  type StripeObjectOf,
  type StripeObjectType,
  type StripePaymentIntent,
  type StripeRef,
  type StripeRefund,
  standardWebhooksData,
  stripeEventObject,
  stripeIdOf,
  stripeObject,
} from './providers/event-objects.js';
export { githubProfile } from './providers/github-profile.js';
export { MalformedWebhookPayload } from './providers/malformed-webhook-payload.js';
export type { JsonObject } from './providers/payload-reader.js';
export { type PaymeProfileOptions, paymeProfile } from './providers/payme-profile.js';
export type { ExtractInput, ProviderEvent, ProviderProfile } from './providers/provider-event.js';
export {
  type StandardWebhooksProfileOptions,
  standardWebhooksProfile,
} from './providers/standard-webhooks-profile.js';
export { type StripeProfileOptions, stripeProfile } from './providers/stripe-profile.js';
export { type YookassaProfileOptions, yookassaProfile } from './providers/yookassa-profile.js';
export type { RefusalLimitOptions } from './refusal-limiter.js';
export { type BasicAuthSchemeOptions, basicAuthScheme } from './verify/basic-auth-scheme.js';
export { type ClickSchemeOptions, clickScheme } from './verify/click-scheme.js';
export { type CustomSchemeOptions, customScheme } from './verify/custom-scheme.js';
export { githubScheme } from './verify/github-scheme.js';
export type { HeaderRecord, HeadersInput, HeadersLike, HeaderValue } from './verify/headers.js';
export { type HmacSchemeOptions, hmacScheme } from './verify/hmac-scheme.js';
export { InvalidVerifyInput } from './verify/invalid-verify-input.js';
export { paymeAuthScheme } from './verify/payme-auth-scheme.js';
export { RawBodyRequired } from './verify/raw-body-required.js';
export type { SecretInput, SecretsInput } from './verify/scheme-options.js';
export { shopifyScheme } from './verify/shopify-scheme.js';
export type {
  RejectReason,
  SignatureScheme,
  SyncSignatureScheme,
  VerifyAccepted,
  VerifyInput,
  VerifyRejected,
  VerifyResult,
} from './verify/signature-scheme.js';
export { type StandardWebhooksSchemeOptions, standardWebhooksScheme } from './verify/standard-webhooks-scheme.js';
export { type StripeSchemeOptions, stripeScheme } from './verify/stripe-scheme.js';
export { WebhookError, type WebhookErrorCode } from './verify/webhook-error.js';
export { webhookEndpoint } from './webhook-endpoint.js';
export {
  WEBHOOK_PROBLEMS,
  type WebhookEdgeCode,
  type WebhookProblemCode,
  type WebhookReceiptCode,
} from './webhook-problems.js';

/**
 * `payonce/service`: the reference payment service of docs/service.md (fastify 5): orders, checkout behind
 * `Idempotency-Key`, provider webhooks through the intake, the outbox fulfilment worker and reconciliation,
 * Prometheus metrics; plus its composition seam (`ServiceOverrides`) for variants and tests.
 * @see docs/design.md §2 `src/service`; docs/service.md.
 */
export { type BackgroundJobs, startBackgroundJobs } from './background-jobs.js';
export { createService, type PaymentService } from './create-service.js';
export { CUSTOMER_HEADER } from './customer-id.js';
export { type EffectOutcome, type FulfilmentHooks, fulfilmentHandlers } from './fulfilment-jobs.js';
export { openServiceStore } from './open-service-store.js';
export {
  type AttemptJson,
  attemptJson,
  type DeliveryJson,
  type EffectRowJson,
  type JobJson,
  type JournalJson,
  type OrderJson,
  type OrderView,
  orderJson,
  orderView,
  type ViewAttemptJson,
} from './order-view.js';
export {
  orderIdOf,
  PAYMENT_EVENT_OBJECTS,
  PAYMENT_EVENT_TYPES,
  paymentEventIdOf,
  paymentEventOf,
} from './payment-event-of.js';
export { type PendingReconcileReport, PendingReconciler } from './pending-reconciliation.js';
export { ReconcileLoop, type ReconcileLoopOptions } from './reconcile-loop.js';
export {
  type SandboxStandardWebhooksProfileOptions,
  sandboxStandardWebhooksProfile,
} from './sandbox-standard-webhooks-profile.js';
export { resolveServiceConfig, type ServiceConfig, type ServiceSettings } from './service-config.js';
export type { ServiceContext } from './service-context.js';
export { ServiceError, type ServiceErrorCode } from './service-error.js';
export { ServiceMetrics, type ServiceMetricsOptions } from './service-metrics.js';
export type { ServiceOptions } from './service-options.js';
export type { ServiceOverrides, ServiceWebhookEndpoint } from './service-overrides.js';
export {
  isServiceRouteCode,
  SERVICE_PROBLEMS,
  SERVICE_ROUTE_PROBLEMS,
  type ServiceRouteCode,
  serviceProblem,
} from './service-problems.js';
export { openServiceRuntime, type ServiceRuntime } from './service-runtime.js';
export {
  FULFILMENTS_TABLE,
  type FulfilmentsTable,
  REFUNDS_TABLE,
  type RefundsTable,
  type ServiceDatabase,
} from './service-tables.js';

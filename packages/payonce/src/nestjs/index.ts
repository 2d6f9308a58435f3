/**
 * `payonce/nestjs`: payonce in a NestJS application — `PayonceModule` (`forRoot`/`forRootAsync`) providing the guard,
 * the store, an outbox and the webhook intake by injection tokens; `IdempotencyKeyInterceptor` for routes; and
 * `payonceWebhookController()` serving `POST /webhooks/:provider`. On @nestjs/platform-express or
 * @nestjs/platform-fastify, with the application created with `rawBody: true`.
 * @see docs/your-stack.md "NestJS".
 */
export {
  IdempotencyKeyInterceptor,
  type NestIdempotencyOptions,
  nestStackTransaction,
  nestTransaction,
} from './idempotency-key-interceptor.js';
export type { NestHttpRequest } from './nest-http.js';
export { PayonceModule } from './payonce-module.js';
export type {
  PayonceModuleAsyncOptions,
  PayonceModuleOptions,
  PayonceModuleRootOptions,
} from './payonce-module-options.js';
export {
  PAYONCE_GUARD,
  PAYONCE_OPTIONS,
  PAYONCE_OUTBOX,
  PAYONCE_STORE,
  PAYONCE_WEBHOOK_INTAKE,
} from './payonce-tokens.js';
export { type PayonceWebhookControllerOptions, payonceWebhookController } from './payonce-webhook-controller.js';

/**
 * Injection tokens of `PayonceModule`: inject what the module provides with `@Inject(PAYONCE_GUARD)` and the like
 * (the tokens are symbols, so they never collide with an application's own providers).
 * @see `PayonceModule.forRoot`.
 */

/** The options the module was configured with (`PayonceModuleOptions`, after `forRootAsync`'s factory ran). */
export const PAYONCE_OPTIONS: unique symbol = Symbol.for('payonce.nestjs.options');
/** The `Store` payonce keeps its receipts in (the guard's store). */
export const PAYONCE_STORE: unique symbol = Symbol.for('payonce.nestjs.store');
/** The `IdempotencyGuard` on that store. */
export const PAYONCE_GUARD: unique symbol = Symbol.for('payonce.nestjs.guard');
/** The `Outbox` on that store (`outbox: true`, SQL stores only); `null` otherwise. */
export const PAYONCE_OUTBOX: unique symbol = Symbol.for('payonce.nestjs.outbox');
/** The `WebhookIntake` built from the `webhooks` option; `null` without one. */
export const PAYONCE_WEBHOOK_INTAKE: unique symbol = Symbol.for('payonce.nestjs.webhookIntake');

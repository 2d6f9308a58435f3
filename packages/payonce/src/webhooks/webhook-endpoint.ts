import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { HandlerTransactionOf, Store } from '../core/store.js';
import type { StackWebhookEndpoint, TransactionalWebhookEndpoint, WebhookEndpoint } from './intake-options.js';

/**
 * Declares one endpoint of the webhook intake apart from the `createWebhookIntake` call (in a variable, in its own
 * module) with its types kept: `transaction: true` stays the literal `true` (an object literal in a plain variable
 * widens it to `boolean`, which `endpoints` refuses with TS2322), and the handler's `event` and `context` are typed
 * from the mode. Returns `endpoint` itself; it checks nothing at run time (the intake does, when built).
 *
 * The transaction types: pass the guard the intake will use, or its store, as the second argument
 * (`webhookEndpoint({…}, guard)`; it is read only for its type) and `context.tx` of a `transaction: true` endpoint,
 * and `context.payonceTx` of an endpoint on the application's stack, are that store's `Transaction<DB>` (what
 * `outbox.enqueueOnce` takes; `unknown` for a guard typed as plain `IdempotencyGuard`).
 * On the application's stack (`transaction: drizzleTransactions(db)`, `pgTransactions(pool)`, …) `context.tx` is
 * typed from the opener (the Drizzle `tx`, the pg `PoolClient`). Without a guard, type arguments do the same
 * (`webhookEndpoint<Transaction<AppDb>>({…})`, `webhookEndpoint<DrizzleTx, Transaction<AppDb>>({…})`); without
 * either, `context.payonceTx` is `unknown`. Annotating the variable (`const stripe:
 * TransactionalWebhookEndpoint<Transaction<AppDb>> = {…}`) or `{…} satisfies …` works too.
 * @see docs/webhook-handlers.md "An endpoint in a variable"; docs/your-stack.md "When payonce opens the transaction".
 * @example const stripe = webhookEndpoint({ transaction: drizzleTransactions(db), profile, scheme, handler: async (event, { tx, payonceTx }) => {} }, guard);
 */
export function webhookEndpoint<N, S extends Store>(
  endpoint: StackWebhookEndpoint<N, HandlerTransactionOf<S>>,
  guardOrStore: IdempotencyGuard<S> | S,
): StackWebhookEndpoint<N, HandlerTransactionOf<S>>;
export function webhookEndpoint<S extends Store>(
  endpoint: TransactionalWebhookEndpoint<HandlerTransactionOf<S>>,
  guardOrStore: IdempotencyGuard<S> | S,
): TransactionalWebhookEndpoint<HandlerTransactionOf<S>>;
export function webhookEndpoint(endpoint: WebhookEndpoint, guardOrStore: IdempotencyGuard | Store): WebhookEndpoint;
export function webhookEndpoint<Tx>(endpoint: TransactionalWebhookEndpoint<Tx>): TransactionalWebhookEndpoint<Tx>;
export function webhookEndpoint<N, Tx = unknown>(endpoint: StackWebhookEndpoint<N, Tx>): StackWebhookEndpoint<N, Tx>;
export function webhookEndpoint(endpoint: WebhookEndpoint): WebhookEndpoint;
export function webhookEndpoint(
  endpoint: WebhookEndpoint | TransactionalWebhookEndpoint<unknown> | StackWebhookEndpoint<unknown>,
  _guardOrStore?: IdempotencyGuard | Store,
): WebhookEndpoint | TransactionalWebhookEndpoint<unknown> | StackWebhookEndpoint<unknown> {
  return endpoint;
}

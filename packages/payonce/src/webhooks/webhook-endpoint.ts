import type { StackWebhookEndpoint, TransactionalWebhookEndpoint, WebhookEndpoint } from './intake-options.js';

/**
 * Declares one endpoint of the webhook intake apart from the `createWebhookIntake` call (in a variable, in its own
 * module) with its types kept: `transaction: true` stays the literal `true` (an object literal in a plain variable
 * widens it to `boolean`, which `endpoints` refuses with TS2322), and the handler's `event` and `context` are typed
 * from the mode. For a one-commit endpoint, give the transaction type (`webhookEndpoint<Transaction<AppDb>>({…})`)
 * to type `context.tx`. Returns `endpoint` itself; it checks nothing at run time (the intake does, when built).
 * Annotating the variable (`const stripe: TransactionalWebhookEndpoint<Transaction<AppDb>> = {…}`) or writing
 * `{…} satisfies TransactionalWebhookEndpoint<Transaction<AppDb>>` does the same.
 * For an endpoint on the application's stack (`transaction: drizzleTransactions(db)`, `pgTransactions(pool)`, …)
 * `context.tx` is typed from the opener (the Drizzle `tx`, the pg `PoolClient`); give payonce's view's type as the
 * second type argument to type `context.payonceTx` (`webhookEndpoint<DrizzleTx, Transaction<AppDb>>({…})`).
 * @see docs/webhook-handlers.md "An endpoint in a variable".
 * @example const stripe = webhookEndpoint<Transaction<AppDb>>({ transaction: true, profile, scheme, handler: async (event, { tx }) => {} });
 */
export function webhookEndpoint<Tx>(endpoint: TransactionalWebhookEndpoint<Tx>): TransactionalWebhookEndpoint<Tx>;
export function webhookEndpoint<N, Tx = unknown>(endpoint: StackWebhookEndpoint<N, Tx>): StackWebhookEndpoint<N, Tx>;
export function webhookEndpoint(endpoint: WebhookEndpoint): WebhookEndpoint;
export function webhookEndpoint(
  endpoint: WebhookEndpoint | TransactionalWebhookEndpoint<unknown> | StackWebhookEndpoint<unknown>,
): WebhookEndpoint | TransactionalWebhookEndpoint<unknown> | StackWebhookEndpoint<unknown> {
  return endpoint;
}

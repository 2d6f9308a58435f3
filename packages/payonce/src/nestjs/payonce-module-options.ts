import type { DynamicModule, InjectionToken, OptionalFactoryDependency } from '@nestjs/common';
import type { GuardOptions } from '../core/guard-options.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Store } from '../core/store.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import type {
  AnyWebhookEndpointModes,
  WebhookEndpointModes,
  WebhookIntakeOptions,
} from '../webhooks/intake-options.js';

/**
 * What `PayonceModule` provides. Give exactly one of `store` (the module builds the guard on it, and closes it when
 * the application shuts down) or `guard` (yours: the module closes nothing of it).
 */
export interface PayonceModuleOptions<
  S extends Store = Store,
  Modes extends WebhookEndpointModes = AnyWebhookEndpointModes,
> {
  /**
   * The store payonce keeps its receipts (and outbox) in, e.g. `await PostgresStore.connect(url)`. The module
   * builds the `IdempotencyGuard` on it with `guardOptions`, and calls `store.close()` on application shutdown
   * unless `closeStore` is false. Run `store.migrate()` (or `payonce migrate`) before the first request.
   */
  readonly store?: S;
  /** A guard you built yourself (instead of `store`); its store is yours to close. */
  readonly guard?: IdempotencyGuard<S>;
  /** Options of the guard the module builds on `store` (ignored with `guard`). @default {} */
  readonly guardOptions?: GuardOptions;
  /** Whether the module closes `store` on application shutdown (`onApplicationShutdown`). @default true */
  readonly closeStore?: boolean;
  /**
   * The transactions of your stack (`prismaTransactions(prisma)`, `drizzleTransactions(db)`, `pgTransactions(pool)`),
   * made here where your client is injected: an `IdempotencyKeyInterceptor({ transaction: 'stack', … })` route runs
   * in one of them (`nestStackTransaction(request)`). @default none
   */
  readonly stackTransactions?: StackTransactions<unknown>;
  /** Provide an `Outbox` on the store under `PAYONCE_OUTBOX` (SQL stores only). @default false */
  readonly outbox?: boolean;
  /**
   * The webhook intake's options without `guard` (the module's guard is used): endpoints by provider name,
   * journal, limits. Provided as a `WebhookIntake` under `PAYONCE_WEBHOOK_INTAKE`, served by a controller of
   * `payonceWebhookController()`. Given to `forRoot`, an endpoint written inline is typed from its `transaction`
   * (as in `createWebhookIntake`); in `forRootAsync`'s factory TypeScript cannot type an inline handler from an opener
   * (`transaction: drizzleTransactions(db)`): declare that endpoint with `webhookEndpoint({ … }, store)`.
   * @default none
   */
  readonly webhooks?: Omit<WebhookIntakeOptions<S, Modes>, 'guard'>;
}

/** Options of `PayonceModule.forRootAsync`: the module's options made by a factory with injected dependencies. */
export interface PayonceModuleAsyncOptions<S extends Store = Store> {
  /** Modules whose exported providers the factory injects (e.g. your `PrismaModule`, `ConfigModule`). */
  readonly imports?: DynamicModule['imports'];
  /** Tokens of the providers handed to `useFactory`, in order. @default [] */
  readonly inject?: readonly (InjectionToken | OptionalFactoryDependency)[];
  /** Makes the options: may be async (connect and migrate a store here). */
  readonly useFactory: (...dependencies: never[]) => PayonceModuleOptions<S> | Promise<PayonceModuleOptions<S>>;
  /** Register the module globally (its providers injectable everywhere without importing it). @default false */
  readonly global?: boolean;
}

/** Options of `PayonceModule.forRoot`: the module's options plus whether it is global. */
export type PayonceModuleRootOptions<
  S extends Store = Store,
  Modes extends WebhookEndpointModes = AnyWebhookEndpointModes,
> = PayonceModuleOptions<S, Modes> & {
  /** Register the module globally. @default false */
  readonly global?: boolean;
};

import type { DynamicModule, Provider } from '@nestjs/common';
import { InvalidOption } from '../core/errors.js';
import { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Store } from '../core/store.js';
import { Outbox } from '../outbox/outbox.js';
import type { SqlTarget } from '../outbox/sql-transaction.js';
import { createWebhookIntake, type WebhookIntake } from '../webhooks/intake.js';
import type { WebhookEndpointModes } from '../webhooks/intake-options.js';
import type {
  PayonceModuleAsyncOptions,
  PayonceModuleOptions,
  PayonceModuleRootOptions,
} from './payonce-module-options.js';
import {
  PAYONCE_GUARD,
  PAYONCE_OPTIONS,
  PAYONCE_OUTBOX,
  PAYONCE_STORE,
  PAYONCE_WEBHOOK_INTAKE,
} from './payonce-tokens.js';

/** The provider that closes, on application shutdown, the store the module was handed to own. */
const PAYONCE_SHUTDOWN: unique symbol = Symbol.for('payonce.nestjs.shutdown');

const EXPORTED = [PAYONCE_OPTIONS, PAYONCE_STORE, PAYONCE_GUARD, PAYONCE_OUTBOX, PAYONCE_WEBHOOK_INTAKE];

/** Checks the options once: exactly one of `store` and `guard`, each of the right kind. */
function checked(options: PayonceModuleOptions): PayonceModuleOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOption('PayonceModule', 'the options (or what useFactory returns) must be an object');
  }
  const { store, guard } = options;
  if ((store === undefined) === (guard === undefined)) {
    throw new InvalidOption('PayonceModule', 'give exactly one of store (the module builds the guard) and guard');
  }
  if (guard !== undefined && !(guard instanceof IdempotencyGuard)) {
    throw new InvalidOption('guard', 'must be an IdempotencyGuard (new IdempotencyGuard(store))');
  }
  if (store !== undefined && (typeof store !== 'object' || store === null || typeof store.insertClaim !== 'function')) {
    throw new InvalidOption('store', 'must be a payonce Store (PostgresStore, MysqlStore, SqliteStore, …)');
  }
  return options;
}

const guardOf = (options: PayonceModuleOptions): IdempotencyGuard =>
  options.guard ?? new IdempotencyGuard(options.store as Store, options.guardOptions);

/** The outbox on a SQL store (`outbox: true`), else `null`. @throws {InvalidOption} the store is not a SQL store. */
function outboxOf(options: PayonceModuleOptions, guard: IdempotencyGuard): Outbox<unknown> | null {
  if (options.outbox !== true) return null;
  const target = guard.store as Partial<SqlTarget<unknown>>;
  if (target.db === undefined || target.dialect === undefined) {
    throw new InvalidOption('outbox', 'needs a SQL store (PostgresStore, MysqlStore, SqliteStore)');
  }
  return new Outbox(target as SqlTarget<unknown>);
}

const intakeOf = (options: PayonceModuleOptions, guard: IdempotencyGuard): WebhookIntake | null =>
  options.webhooks === undefined ? null : createWebhookIntake({ ...options.webhooks, guard });

/** Closes the store the module owns (handed in `store`, `closeStore` not false) when the application shuts down. */
function shutdownOf(options: PayonceModuleOptions) {
  return {
    async onApplicationShutdown(): Promise<void> {
      const store = options.store as (Store & { close?: () => unknown }) | undefined;
      if (store !== undefined && options.closeStore !== false && typeof store.close === 'function') await store.close();
    },
  };
}

/** The providers every form of the module has, all derived from the options provider. */
function derivedProviders(): Provider[] {
  return [
    { provide: PAYONCE_GUARD, useFactory: guardOf, inject: [PAYONCE_OPTIONS] },
    { provide: PAYONCE_STORE, useFactory: (guard: IdempotencyGuard) => guard.store, inject: [PAYONCE_GUARD] },
    { provide: PAYONCE_OUTBOX, useFactory: outboxOf, inject: [PAYONCE_OPTIONS, PAYONCE_GUARD] },
    { provide: PAYONCE_WEBHOOK_INTAKE, useFactory: intakeOf, inject: [PAYONCE_OPTIONS, PAYONCE_GUARD] },
    { provide: PAYONCE_SHUTDOWN, useFactory: shutdownOf, inject: [PAYONCE_OPTIONS] },
  ];
}

/**
 * The NestJS module of payonce: provides the `IdempotencyGuard` (`PAYONCE_GUARD`), its store (`PAYONCE_STORE`), an
 * `Outbox` (`PAYONCE_OUTBOX`, with `outbox: true`) and the webhook intake (`PAYONCE_WEBHOOK_INTAKE`, with
 * `webhooks`), for `IdempotencyKeyInterceptor(…)` routes and a `payonceWebhookController()`. On application shutdown
 * (`app.close()`, or a signal after `app.enableShutdownHooks()`) it closes the store it was handed in `store`.
 * Built as a plain dynamic module (no decorators), so it needs no `experimentalDecorators` in your build.
 * @see docs/your-stack.md "NestJS"; NestJS docs "Dynamic modules" (`forRoot`/`forRootAsync`), "Lifecycle events".
 * @example
 * PayonceModule.forRootAsync({
 *   global: true,
 *   useFactory: async () => {
 *     const store = await PostgresStore.connect(process.env.DATABASE_URL!);
 *     await store.migrate();
 *     return { store, outbox: true };
 *   },
 * })
 */
// biome-ignore lint/complexity/noStaticOnlyClass: Nest names a dynamic module by a class (`module: PayonceModule`)
export class PayonceModule {
  /**
   * The module with options known now.
   * @throws {InvalidOption} not exactly one of `store` and `guard`; `outbox: true` on a store that is not SQL; bad
   *   webhook options (see `createWebhookIntake`) — when the application boots.
   */
  static forRoot<S extends Store, Modes extends WebhookEndpointModes>(
    options: PayonceModuleRootOptions<S, Modes>,
  ): DynamicModule {
    const { global = false, ...rest } = options;
    return {
      module: PayonceModule,
      global,
      providers: [{ provide: PAYONCE_OPTIONS, useValue: checked(rest as PayonceModuleOptions) }, ...derivedProviders()],
      exports: EXPORTED,
    };
  }

  /**
   * The module with options made by `useFactory` (with the providers named in `inject`, from `imports`), e.g. to
   * connect the store with a URL of your `ConfigService`. The factory runs once, when the application boots.
   * @throws {InvalidOption} `useFactory` is not a function (now); what `forRoot` throws (when the app boots).
   */
  static forRootAsync<S extends Store>(options: PayonceModuleAsyncOptions<S>): DynamicModule {
    const { useFactory, inject = [], imports = [], global = false } = options;
    if (typeof useFactory !== 'function') throw new InvalidOption('useFactory', 'must be a function');
    const factory = async (...dependencies: never[]) =>
      checked((await useFactory(...dependencies)) as unknown as PayonceModuleOptions);
    return {
      module: PayonceModule,
      global,
      imports,
      providers: [{ provide: PAYONCE_OPTIONS, useFactory: factory, inject: [...inject] }, ...derivedProviders()],
      exports: EXPORTED,
    };
  }
}

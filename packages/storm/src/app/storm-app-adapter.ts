import type { ViewAttempt, ViewDelivery, ViewJob, ViewJournalEntry } from '../order-view.js';
import type { StormMoney } from '../service-api.js';
import type { ServiceControl } from '../service-control.js';
import type { HttpAnswer } from '../storm-http.js';
import type { StormAppProviders, StormProviderSecrets } from './storm-app-providers.js';

/**
 * Order statuses the storm judges by (docs/service.md `Order.status`); an adapter maps its app's own states onto
 * them: `draft` / `awaiting_payment` = not paid, `paid` / `fulfilling` / `completed` = money taken, `refunded`,
 * `cancelled`.
 */
export type StormOrderStatus =
  | 'draft'
  | 'awaiting_payment'
  | 'paid'
  | 'fulfilling'
  | 'completed'
  | 'refunded'
  | 'cancelled';

/** The app's answer to "create an order": its HTTP answer as the storm saw it, and the new order's id (`null` if none). */
export interface AppOrderAnswer extends HttpAnswer {
  readonly orderId: string | null;
}

/**
 * The app's answer to "start a payment": its HTTP answer, plus what the storm judges: the payment attempt it names
 * (`null` when none: already paid, an error), that attempt's status (`pending`, `unknown`, `failed`, …), the
 * provider's payment id when the app knows it, and `outcome`: `created` (a new attempt), `existing` (the order's
 * active attempt, opened earlier) or `already-paid`; `null` when the app does not say.
 */
export interface AppPaymentAnswer extends HttpAnswer {
  readonly attemptId: string | null;
  readonly attemptStatus: string | null;
  readonly providerPaymentId: string | null;
  readonly outcome: 'created' | 'existing' | 'already-paid' | null;
}

/**
 * One order's state and effects as the app records them: what the common rule of docs/design.md §9 judges. Money
 * in integer minor units. The optional parts are what some scenarios also need (declared in
 * {@link StormAppCapabilities}); leave out what your app does not keep.
 */
export interface StormOrderState {
  readonly status: StormOrderStatus;
  readonly amountMinor: number;
  /** ISO-4217, upper case. */
  readonly currency: string;
  /** How many times the order moved to paid (journal rows, audit rows): at most 1 is correct. */
  readonly paidTransitions: number;
  /** How many times the goods were shipped (rows of the app's fulfilment table): at most 1 is correct. */
  readonly fulfilments: number;
  /** How many refunds the app applied (only read with the `refunds` capability). */
  readonly refunds?: number;
  /** The order's payment attempts (capability `attempts`). */
  readonly attempts?: readonly ViewAttempt[];
  /** The order's background jobs, e.g. `order.fulfil` (capability `jobs`). */
  readonly jobs?: readonly ViewJob[];
  /** Provider reports and what the app decided about each (capability `journal`). */
  readonly journal?: readonly ViewJournalEntry[];
  /** Webhook deliveries the app recorded for the order's payments (capability `journal`). */
  readonly deliveries?: readonly ViewDelivery[];
}

/** Who asks, and on which replica: every adapter call gets the scenario's customer and an optional replica index. */
export interface StormCall {
  /** A customer id used by no other scenario (`X-Customer-Id` for the reference service). */
  readonly customer: string;
  /** Replica to send the call to (only with the `replicas` capability); `undefined`: any. */
  readonly replica?: number;
}

/** Optional things an app can do; a scenario that needs one the adapter lacks is SKIPPED, with the reason. */
export interface StormAppCapabilities {
  /** `readOrder` returns `attempts` (scenarios 1, 2, 4, 5, 15: one active attempt per order). */
  readonly attempts?: boolean;
  /** `readOrder` returns `jobs` with the `order.fulfil` job (scenarios 12, 14). */
  readonly jobs?: boolean;
  /**
   * `readOrder` returns `journal` and `deliveries` (scenario 18, and the journal check of scenario 11, which runs
   * without it); they must show the genuine events the app acknowledged, or those scenarios fail.
   */
  readonly journal?: boolean;
  /** The app applies the provider's refunds: `charge.refunded` makes the order `refunded` (scenario 17). */
  readonly refunds?: boolean;
  /** Kills the app (SIGKILL) and waits for it to be back (scenario 12). */
  readonly crashAndRestart?: ServiceControl['crashAndRestart'];
  /**
   * Re-runs the order's finished fulfilment job as an operator would (scenario 14); resolves with the app's answer.
   * A correct app refuses (the job is done) or re-runs it without a second fulfilment.
   */
  readonly rerunFulfilment?: (
    call: StormCall & { orderId: string; jobId: string; idempotencyKey: string },
  ) => Promise<HttpAnswer>;
  /** Base URLs of two or more replicas of the app on one database, each with `GET /healthz` `{ pid }` (scenarios 19–22). */
  readonly replicas?: readonly string[];
}

/**
 * What the storm needs from an app (docs/storm-your-app.md): create an order, start a payment with a given
 * idempotency key, read an order's state and effects, and where its provider webhooks arrive. The app calls the
 * storm's sandbox (its URL and webhook secret are given to the adapter factory, {@link StormAppSetup}). Calls
 * answer what the app answered; they throw only when the app could not be reached (the scenario then fails with
 * the error). @see {@link referenceServiceAdapter} for the reference service's own adapter.
 */
export interface StormAppAdapter {
  /** A short name for reports, e.g. `shop (express + drizzle)`. */
  readonly name: string;
  /**
   * Resolves when the app is ready to take requests (e.g. `GET /healthz` answered 200); throws otherwise, with a
   * message saying what did not answer (the storm prints it and exits 1).
   */
  health(): Promise<void>;
  /** The absolute URL of the app's webhook endpoint for the sandbox's signing scheme (optionally of one replica). */
  webhookUrl(scheme: 'stripe' | 'standard-webhooks', replica?: number): string;
  /** Creates an order of `money` (with the app's own `Idempotency-Key` when `idempotencyKey` is given). */
  createOrder(call: StormCall & { money: StormMoney; idempotencyKey?: string }): Promise<AppOrderAnswer>;
  /**
   * Starts (or resumes) the payment of an order with the `Idempotency-Key` `idempotencyKey`. The storm accepts the
   * pay route's 200, 201 or 202 (e.g. for an outcome not known yet) when the answer names the attempt; any other
   * status fails the checkout.
   */
  startPayment(call: StormCall & { orderId: string; idempotencyKey: string }): Promise<AppPaymentAnswer>;
  /**
   * The order's state and effects. @throws when the order cannot be read (the storm reports the error as the
   * order's problem).
   */
  readOrder(call: StormCall & { orderId: string }): Promise<StormOrderState>;
  /** What else the app can do. @default none */
  readonly capabilities?: StormAppCapabilities;
  /**
   * The other providers' endpoints of the app (`--provider payme`); a provider left out has its storm's scenarios
   * skipped with the reason. @default none
   */
  readonly providers?: StormAppProviders;
  /** Releases what the adapter holds (connections, pools); the storm calls it once at the end. */
  close?(): Promise<void>;
}

/**
 * What `payonce storm` gives an adapter factory (the default export of an adapter file): the app's base URL
 * (`--url`), and the sandbox the app must call and whose webhooks it must verify. The same values are in the
 * started app's environment (docs/storm-your-app.md: `PAYONCE_STORM_SANDBOX_URL`, `PAYONCE_STORM_WEBHOOK_SECRET`, …).
 */
export interface StormAppSetup {
  /** Base URL of the app, without a trailing slash. */
  readonly appUrl: string;
  /** Base URL of the storm's sandbox provider (Stripe-shaped API under `/v1`). */
  readonly sandboxUrl: string;
  /** The secret the sandbox signs its webhooks with (`whsec_…`). */
  readonly webhookSecret: string;
  /** The sandbox's API key (a test key the sandbox accepts). */
  readonly apiKey: string;
  /**
   * The provider storms' secrets (the Payme cashbox key, …), the same as in the started app's environment; absent
   * when the adapter is made by a program that runs no provider storm.
   */
  readonly providers?: StormProviderSecrets;
}

/** An adapter file's default export: an adapter, or a function of the {@link StormAppSetup} that makes one. */
export type StormAppAdapterModule =
  | StormAppAdapter
  | ((setup: StormAppSetup) => StormAppAdapter | Promise<StormAppAdapter>);

/** The capability names a scenario can need. */
export type StormCapability =
  | 'attempts'
  | 'jobs'
  | 'journal'
  | 'refunds'
  | 'crashAndRestart'
  | 'rerunFulfilment'
  | 'replicas';

/**
 * True when the adapter offers `capability`. `replicas` counts only with two or more; the function-valued ones
 * only when given.
 */
export function hasCapability(adapter: StormAppAdapter, capability: StormCapability): boolean {
  const caps = adapter.capabilities ?? {};
  if (capability === 'replicas') return (caps.replicas?.length ?? 0) >= 2;
  return Boolean(caps[capability]);
}

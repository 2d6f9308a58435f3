import type { AppApi } from './app/app-api.js';
import type { AppPaymentAnswer } from './app/storm-app-adapter.js';
import type { CraftedEvent } from './crafted-event.js';
import type { OrderView } from './order-view.js';
import type { SandboxApi } from './sandbox-api.js';
import type { ScenarioResult } from './scenario.js';
import type { StormMoney } from './service-api.js';
import type { ServiceControl } from './service-control.js';
import type { HttpAnswer } from './storm-http.js';

/**
 * What a scenario works with: the app under test (through its adapter) and the sandbox over HTTP, a fresh customer, helpers that track every
 * order it creates (each is judged by the common rule at `conclude()`), and a deadline for every wait.
 */
export interface ScenarioContext {
  /** The app under test, through its {@link StormAppAdapter} (the reference service's is one of them). */
  readonly service: AppApi;
  readonly sandbox: SandboxApi;
  /**
   * Kills the app and waits for it to be back (the adapter's `crashAndRestart`; with several replicas and no index,
   * a replica drawn from the run's seed). @throws {Error} the adapter has no `crashAndRestart`.
   */
  readonly serviceControl: ServiceControl;
  /** True when `serviceControl.crashAndRestart` can kill and restart the app (the adapter has the capability). */
  readonly restartable: boolean;
  /** A customer id (`X-Customer-Id`) used by no other scenario. */
  readonly customer: string;
  /** Milliseconds left before the scenario's deadline. */
  timeLeftMs(): number;
  /** Order money drawn from the run's seed: 100…99 999 minor units, EUR. */
  money(): StormMoney;
  /** A fresh Idempotency-Key, `storm-<label>-<random>`. */
  key(label: string): string;
  /** Creates an order (must answer 201 with an id) for `customer` and tracks it; returns its id. */
  newOrder(money?: StormMoney, customer?: string): Promise<string>;
  /** Adds an order created otherwise to the ones judged at the end. */
  track(orderId: string, customer?: string): void;
  /**
   * Starts the order's payment with `key`; a `409` (same key still running) is retried after its `Retry-After`
   * (capped at 250 ms) until another answer or the deadline.
   */
  checkout(orderId: string, key: string, customer?: string): Promise<AppPaymentAnswer>;
  /** The order's first provider payment id, waiting until the sandbox ledger shows one. */
  paymentOf(orderId: string): Promise<string>;
  /** The order's state and effects (the adapter's `readOrder`). */
  view(orderId: string, customer?: string): Promise<OrderView>;
  /**
   * Polls `probe` until it returns a value other than `null`/`undefined`/`false`, or the deadline; on timeout the
   * scenario fails with "timed out waiting for <what>" and `null` is returned.
   */
  waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, pollMs?: number): Promise<T | null>;
  /** Sends a crafted webhook to the app's webhook URL, or replica `replica`'s (counted as a delivery sent). */
  sendCrafted(event: CraftedEvent, replica?: number): Promise<HttpAnswer>;
  /** Records `reason` as a failure unless `condition` holds; returns `condition`. */
  expect(condition: boolean, reason: string): boolean;
  /** Adds a line to the scenario's notes (the JSON report). */
  note(text: string): void;
  /** Waits for every tracked order to settle, judges them and returns the result. */
  conclude(): Promise<ScenarioResult>;
  /** A `skip` result saying why the scenario cannot run against this target. */
  skip(reason: string): ScenarioResult;
}

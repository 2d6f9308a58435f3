import type { OrderCounts } from '../provider/order-rules.js';

/** What the target reports about one order: its paid transitions, fulfilments and refunds (a performed transaction cancelled, state -2), as it recorded them. */
export type PaymeOrderCounts = OrderCounts;

/** An order the target created for the storm: the `account` Payme sends for it, and its amount in tiyin. */
export interface PaymeStormOrder {
  /** The `account` object of Payme's calls naming this order, e.g. `{ order_id: "…" }`. */
  readonly account: Readonly<Record<string, unknown>>;
  /** Tiyin (1 sum = 100 tiyin). */
  readonly amount: number;
}

/**
 * A merchant the Payme storm drives: its Merchant API endpoint and key, a way to create a payable order and to read
 * what it recorded about one. The optional members are capabilities: a scenario that needs one the target lacks is
 * skipped with the reason, never passed.
 * @see docs/storm.md "Payme storm".
 */
export interface PaymeStormTarget {
  /** The Merchant API endpoint Payme calls (`POST`, JSON-RPC), e.g. `http://127.0.0.1:3000/payme`. */
  readonly merchantUrl: string;
  /** The cashbox key (password of `Paycom:<key>`). Never printed. */
  readonly key: string;
  /** A short description for the report (no secrets), e.g. `in-process app on sqlite`. */
  readonly description: string;
  /**
   * Creates a payable order of `amount` tiyin and returns it.
   * @throws {Error} the target refused to create it (the scenario fails with the message).
   */
  createOrder(amount: number): Promise<PaymeStormOrder>;
  /** What the target recorded about the order Payme names with `account`. @throws {Error} it could not be read. */
  readOrder(account: Readonly<Record<string, unknown>>): Promise<PaymeOrderCounts>;
  /**
   * The merchant's clock, when the storm may move it: `now()` epoch ms (Payme's `time` is taken from it) and
   * `advance(ms)` (the 12-hour timeout scenario moves it 12 h + 1 min). Absent: that scenario sends a Create whose
   * `time` lies 12 h + 1 min in the past instead, as Payme's documentation counts the timeout from `time`.
   */
  readonly clock?: { now(): number; advance(ms: number): Promise<void> | void };
  /**
   * Kills the merchant process hard (SIGKILL, no graceful shutdown) and returns once a new process answers; `note`
   * says what was killed. Absent: the crash scenario is skipped.
   */
  crashAndRestart?(): Promise<{ note: string }>;
  /**
   * Runs the order's finished fulfilment job again (an operator's re-run, a redelivered job) and returns a note of
   * what happened; the fulfilment must not happen twice. Absent: the job re-run scenario is skipped.
   */
  rerunFulfilment?(account: Readonly<Record<string, unknown>>): Promise<{ note: string }>;
  /** Why `crashAndRestart` or `rerunFulfilment` is absent, for the skip reason (e.g. "no --admin-token"). */
  readonly missing?: Readonly<{ crash?: string; rerun?: string }>;
}

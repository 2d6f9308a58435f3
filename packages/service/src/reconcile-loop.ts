import { PeriodicTask } from 'payonce/internal/core/periodic-task.js';
import type { Payments, ReconcileReport } from 'payonce/internal/payments/payments.js';
import type { PendingReconcileReport } from './pending-reconciliation.js';

/** Options of {@link ReconcileLoop}. Durations in milliseconds. */
export interface ReconcileLoopOptions {
  /** Pause between the end of one run and the start of the next. */
  readonly everyMs: number;
  /** Attempts in `creating`/`unknown` not updated for this long are asked about (`reconcile({ olderThanMs })`). */
  readonly afterMs: number;
  /** Called with each run's report. */
  readonly onRun?: (report: ReconcileReport) => void;
  /** Also re-checks stale `pending`/`requires_action` attempts after each run (`PendingReconciler`). */
  readonly pending?: { runOnce(): Promise<PendingReconcileReport> };
  /** Called with each pending re-check's report. */
  readonly onPendingRun?: (report: PendingReconcileReport) => void;
  /** Called when a run throws (database down); the loop goes on. */
  readonly onError?: (error: unknown) => void;
}

/**
 * The reconciliation job of docs/design.md §6 on a timer: every `everyMs` it calls
 * `payments.reconcile({ olderThanMs: afterMs })`, which asks the provider about attempts left `creating` or
 * `unknown` (a timed-out create) and matches parked events; then, with `pending`, re-checks attempts whose
 * webhooks never came. One run at a time; `stop()` waits for the running one.
 * @example const loop = new ReconcileLoop(payments, { everyMs: 10_000, afterMs: 60_000 }); loop.start();
 */
export class ReconcileLoop {
  private readonly payments: Payments<unknown>;
  private readonly options: ReconcileLoopOptions;
  private readonly periodic: PeriodicTask;

  constructor(payments: Payments<unknown>, options: ReconcileLoopOptions) {
    this.payments = payments;
    this.options = options;
    this.periodic = new PeriodicTask(options.everyMs, () => this.tick(), options.onError);
  }

  /** One reconciliation run now; its report. @throws the database's or provider client's unexpected error. */
  runOnce(): Promise<ReconcileReport> {
    return this.payments.reconcile({ olderThanMs: this.options.afterMs });
  }

  /** Starts the timer (the first run after `everyMs`). Idempotent. */
  start(): void {
    this.periodic.start();
  }

  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void> {
    return this.periodic.stop();
  }

  private async tick(): Promise<void> {
    this.options.onRun?.(await this.runOnce());
    if (this.options.pending) this.options.onPendingRun?.(await this.options.pending.runOnce());
  }
}

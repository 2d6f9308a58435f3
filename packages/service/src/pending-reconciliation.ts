import type { AttemptStatus } from 'payonce/internal/payments/attempt-status.js';
import type { ServiceContext } from './service-context.js';

/** What one {@link PendingReconciler} run did. */
export interface PendingReconcileReport {
  /** Stale `pending`/`requires_action` attempts asked about. */
  readonly examined: number;
  /** Of those, how many the provider reported in another status (applied through `applyProviderEvent`). */
  readonly changed: number;
  /** Look-ups that threw (left as they were; asked again next window). */
  readonly lookupErrors: number;
}

const WAITING: readonly AttemptStatus[] = ['pending', 'requires_action'];

/**
 * Re-checks payments whose webhooks never came: `Payments.reconcile` resolves attempts in `creating`/`unknown`
 * (docs/design.md §6); this asks the provider (`getPaymentByReference`) about attempts left `pending` or `requires_action`
 * for `olderThanMs`, at most once per attempt per `olderThanMs` (an abandoned 3-D Secure page is not polled on
 * every run). When the provider reports another status, it is applied as a provider event
 * (`eventType: 'reconciliation'`, receipt `reconcile-pending:<attemptId>:<uuid>`) through
 * `payments.reconcileAttempts` in `event` mode (`applyProviderEvent`): same checks, forward-only, journaled,
 * fulfilment enqueued once. A provider that says nothing new changes nothing and writes nothing.
 * @see docs/design.md §6 "Reconciliation"; Stripe "Webhooks: best practices" (handle missed events).
 * @example const pending = new PendingReconciler(ctx, { olderThanMs: 300_000 }); await pending.runOnce();
 */
export class PendingReconciler {
  private readonly ctx: ServiceContext;
  private readonly olderThanMs: number;
  private readonly limit: number;
  private readonly askedAt = new Map<string, number>();

  constructor(ctx: ServiceContext, options: { olderThanMs: number; limit?: number }) {
    this.ctx = ctx;
    this.olderThanMs = options.olderThanMs;
    this.limit = options.limit ?? 100;
  }

  /** One run. @throws the database's error (a provider look-up error is counted, not thrown). */
  async runOnce(): Promise<PendingReconcileReport> {
    const now = this.ctx.clock.now();
    for (const [id, at] of this.askedAt) if (at <= now - this.olderThanMs) this.askedAt.delete(id);
    const outcomes = await this.ctx.payments.reconcileAttempts({
      statuses: WAITING,
      olderThanMs: this.olderThanMs,
      limit: this.limit,
      mode: { as: 'event', receiptPrefix: 'reconcile-pending' },
      skip: new Set(this.askedAt.keys()),
      nowMs: now,
      onAsk: (attempt) => this.askedAt.set(attempt.id, now),
    });
    let changed = 0;
    let lookupErrors = 0;
    for (const done of outcomes) {
      if (done.outcome === 'lookup-failed') lookupErrors++;
      if (done.outcome === 'event-applied' && done.result.decision === 'applied') changed++;
    }
    return Object.freeze({ examined: outcomes.length, changed, lookupErrors });
  }
}

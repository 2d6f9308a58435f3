import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import type { AttemptStatus } from 'payonce/internal/payments/attempt-status.js';
import type { ProviderPayment } from 'payonce/internal/payments/payment-provider.js';
import { ATTEMPTS_TABLE, type PaymentsDatabase } from 'payonce/internal/payments/payments-tables.js';
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
 * `payments.applyProviderEvent`: same checks, forward-only, journaled, fulfilment enqueued once. A provider that
 * says nothing new changes nothing and writes nothing.
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
    const { ctx } = this;
    const now = ctx.clock.now();
    for (const [id, at] of this.askedAt) if (at <= now - this.olderThanMs) this.askedAt.delete(id);
    const db = ctx.store.db as unknown as Kysely<PaymentsDatabase>;
    const rows = await db
      .selectFrom(ATTEMPTS_TABLE)
      .selectAll()
      .where('provider', '=', ctx.provider.name)
      .where('status', 'in', [...WAITING])
      .where('updated_at', '<=', now - this.olderThanMs)
      .orderBy('updated_at')
      .limit(this.limit + this.askedAt.size)
      .execute();
    let examined = 0;
    let changed = 0;
    let lookupErrors = 0;
    for (const row of rows) {
      if (examined >= this.limit) break;
      if (this.askedAt.has(row.id)) continue;
      this.askedAt.set(row.id, now);
      examined++;
      let payment: ProviderPayment | null;
      try {
        payment = await ctx.provider.getPaymentByReference(row.id);
      } catch {
        lookupErrors++;
        continue;
      }
      if (payment === null || payment.status === row.status) continue;
      const result = await ctx.payments.applyProviderEvent({
        provider: row.provider,
        key: new RequestKey(row.provider, `reconcile-pending:${row.id}:${randomUUID()}`),
        eventType: 'reconciliation',
        status: payment.status,
        paymentId: payment.paymentId,
        amountMinor: payment.amountMinor,
        currency: payment.currency,
        merchantReference: payment.merchantReference,
        occurredAtMs: null,
        orderId: row.order_id,
      });
      if (result.decision === 'applied') changed++;
    }
    return Object.freeze({ examined, changed, lookupErrors });
  }
}

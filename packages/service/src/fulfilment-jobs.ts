import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely, Transaction } from 'kysely';
import { runEffectOnce } from 'payonce/internal/outbox/effect-ledger.js';
import type { OutboxJob } from 'payonce/internal/outbox/outbox-job.js';
import type { JobHandler } from 'payonce/internal/outbox/outbox-worker.js';
import { FULFIL_TOPIC, REFUND_TOPIC } from 'payonce/internal/payments/apply-report.js';
import type { SqlStore } from 'payonce/internal/stores/sql/sql-store.js';
import { tablesIn } from 'payonce/internal/stores/sql/table-namespace.js';
import { ORDER_FULFILLED_TOPIC, ORDER_PAID_TOPIC } from './order-events.js';
import type { ServiceContext } from './service-context.js';
import { FULFILMENTS_TABLE, REFUNDS_TABLE, type ServiceDatabase } from './service-tables.js';

/** What one fulfilment or refund job did: `performed` (a row written now), `already-applied` (effect ledger), `skipped`. */
export type EffectOutcome = 'performed' | 'already-applied' | 'skipped';

/** Observers of {@link fulfilmentHandlers}. */
export interface FulfilmentHooks {
  /** Called after each job's effect transaction committed (or was found already applied). */
  onEffect?: (kind: 'fulfil' | 'refund', outcome: EffectOutcome, job: OutboxJob) => void;
  /** Aborts the simulated warehouse wait when the worker stops. */
  signal?: AbortSignal;
}

/** `{ orderId, attemptId }` of a job enqueued by `Payments`. @throws {Error} another payload (the job is retried, then dead). */
function payloadOf(job: OutboxJob): { orderId: string; attemptId: string | null } {
  const payload = job.payload as { orderId?: unknown; attemptId?: unknown } | null;
  if (typeof payload?.orderId !== 'string' || payload.orderId === '') {
    throw new Error(`job ${job.id} (${job.topic}) has no orderId in its payload`);
  }
  return { orderId: payload.orderId, attemptId: typeof payload.attemptId === 'string' ? payload.attemptId : null };
}

function table(store: SqlStore<unknown>, trx: Transaction<unknown>): Kysely<ServiceDatabase> {
  return tablesIn<ServiceDatabase>(store, trx);
}

/** Inserts the row of one performed fulfilment or refund (the business effect the ledger guards). */
async function insertEffectRow(
  store: SqlStore<unknown>,
  trx: Transaction<unknown>,
  into: typeof FULFILMENTS_TABLE | typeof REFUNDS_TABLE,
  row: { orderId: string; attemptId: string | null; jobId: string; nowMs: number },
): Promise<void> {
  await table(store, trx)
    .insertInto(into)
    .values({
      id: randomUUID(),
      order_id: row.orderId,
      attempt_id: row.attemptId,
      job_id: row.jobId,
      created_at: row.nowMs,
    })
    .execute();
}

/**
 * The outbox handlers of the reference service (docs/design.md §7), for an `OutboxWorker` on `ctx.store`:
 * - `order.fulfil` (enqueued once by `Payments` when an order becomes paid): waits `config.fulfilDelayMs` (the
 *   simulated warehouse call, OUTSIDE any transaction, so a process killed during it has written nothing and
 *   leaves the job leased until its lease expires), then in ONE transaction through the effect ledger
 *   (`runEffectOnce(store, 'fulfil:<orderId>')`): moves the order `paid → fulfilling`, inserts one row into
 *   `payonce_service_fulfilments` and moves it to `completed`. A re-run job (crash, lease takeover, admin
 *   re-drive) finds the effect key and ships nothing again. An order refunded or cancelled before its turn is
 *   not shipped (the key is still recorded, with no row).
 * - `order.refunded` (enqueued once when a paid order is refunded): records one row in `payonce_service_refunds`
 *   under the effect key `refund:<orderId>`.
 * - With `config.brokerUrl`, the fulfil job also enqueues the domain events `order.paid` (its first run, own
 *   transaction) and `order.fulfilled` (inside the fulfilment's effect transaction), aggregate `order:<id>`, for
 *   the `OutboxRelay` (docs/relay.md).
 * @see docs/design.md §7 "Effect ledger"; docs/service.md.
 */
export function fulfilmentHandlers(
  ctx: ServiceContext,
  hooks: FulfilmentHooks = {},
): Record<string, JobHandler<unknown>> {
  const report = (kind: 'fulfil' | 'refund', outcome: EffectOutcome, job: OutboxJob) =>
    hooks.onEffect?.(kind, outcome, job);

  const events = ctx.config.brokerUrl !== null;
  const event = (trx: Transaction<unknown>, topic: string, order: { orderId: string; attemptId: string | null }) =>
    ctx.outbox.enqueueOnce(trx, topic, `order:${order.orderId}`, order, { aggregateKey: `order:${order.orderId}` });

  const fulfil: JobHandler<unknown> = async (job) => {
    const { orderId, attemptId } = payloadOf(job);
    // The fulfil job exists once per paid order: its first run records `order.paid` (once: dedupe key).
    if (events) await ctx.store.db.transaction().execute((trx) => event(trx, ORDER_PAID_TOPIC, { orderId, attemptId }));
    if (ctx.config.fulfilDelayMs > 0) await sleep(ctx.config.fulfilDelayMs, undefined, { signal: hooks.signal });
    const result = await runEffectOnce(
      ctx.store,
      `fulfil:${orderId}`,
      async (trx) => {
        const start = await ctx.payments.advanceOrder(trx, orderId, 'fulfilling');
        if (start.kind === 'ignored') return false;
        await insertEffectRow(ctx.store, trx, FULFILMENTS_TABLE, {
          orderId,
          attemptId,
          jobId: job.id,
          nowMs: ctx.clock.now(),
        });
        await ctx.payments.advanceOrder(trx, orderId, 'completed');
        if (events) await event(trx, ORDER_FULFILLED_TOPIC, { orderId, attemptId });
        return true;
      },
      { jobId: job.id, nowMs: ctx.clock.now() },
    );
    report(
      'fulfil',
      result.kind === 'already-applied' ? 'already-applied' : result.value ? 'performed' : 'skipped',
      job,
    );
  };

  const refund: JobHandler<unknown> = async (job) => {
    const { orderId, attemptId } = payloadOf(job);
    const result = await runEffectOnce(
      ctx.store,
      `refund:${orderId}`,
      async (trx) => {
        await insertEffectRow(ctx.store, trx, REFUNDS_TABLE, {
          orderId,
          attemptId,
          jobId: job.id,
          nowMs: ctx.clock.now(),
        });
      },
      { jobId: job.id, nowMs: ctx.clock.now() },
    );
    report('refund', result.kind === 'already-applied' ? 'already-applied' : 'performed', job);
  };

  return { [FULFIL_TOPIC]: fulfil, [REFUND_TOPIC]: refund };
}

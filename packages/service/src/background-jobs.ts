import { randomUUID } from 'node:crypto';
import { OutboxWorker } from 'payonce/internal/outbox/outbox-worker.js';
import { publisherForUrl } from 'payonce/internal/relay/broker-url.js';
import { OutboxRelay } from 'payonce/internal/relay/outbox-relay.js';
import { registerRelayMetrics } from 'payonce/internal/relay/relay-prometheus.js';
import { fulfilmentHandlers } from './fulfilment-jobs.js';
import { ORDER_EVENT_TOPICS } from './order-events.js';
import { PendingReconciler } from './pending-reconciliation.js';
import { ReceiptPurgeLoop } from './receipt-purge.js';
import { ReconcileLoop } from './reconcile-loop.js';
import type { ServiceRuntime } from './service-runtime.js';
import { serviceTelegramPayments } from './telegram-endpoint.js';

/** The outbox worker and the reconciliation loop of one process. */
export interface BackgroundJobs {
  readonly worker: OutboxWorker<unknown>;
  readonly reconciler: ReconcileLoop;
  /** The periodic purge of expired `Idempotency-Key` and webhook receipts. */
  readonly purger: ReceiptPurgeLoop;
  /** The relay of `order.paid` / `order.fulfilled` to `brokerUrl`, or `null` without a broker. */
  readonly relay: OutboxRelay<unknown> | null;
  /** Stops all three (aborting a fulfilment's simulated warehouse wait: that job is retried later); resolves when stopped. */
  stop(): Promise<void>;
}

/**
 * Starts the in-process background work of the reference service (docs/design.md §6–7): an `OutboxWorker` on the
 * service's store running the fulfilment and refund handlers (`fulfilmentHandlers`; `workerConcurrency` jobs at
 * once, poll `workerPollMs`, lease
 * `leaseMs`, first retry `retryBaseMs`), and a {@link ReconcileLoop} every `reconcileEveryMs` for attempts older
 * than `reconcileAfterMs`, which also re-checks attempts `pending` for `reconcilePendingAfterMs`, and a
 * {@link ReceiptPurgeLoop} every `receiptPurgeEveryMs` (24 h `Idempotency-Key` expiry, `webhookReceiptRetentionMs`
 * for webhook receipts). With `brokerUrl`, an {@link OutboxRelay} publishes `order.paid` / `order.fulfilled`
 * there (metrics `payonce_relay_*`). Used by
 * `createService` (unless `worker: false`) and by `payonce worker`.
 * @example const jobs = startBackgroundJobs(runtime); … await jobs.stop();
 */
export function startBackgroundJobs(runtime: ServiceRuntime): BackgroundJobs {
  const { context: ctx, metrics } = runtime;
  const { config, logger } = ctx;
  const abort = new AbortController();
  const handlers = {
    ...fulfilmentHandlers(ctx, {
      signal: abort.signal,
      onEffect: (kind, outcome, job) => {
        metrics.fulfilments.inc({ kind, outcome });
        logger.info({ kind, outcome, jobId: job.id, dedupeKey: job.dedupeKey }, `${kind} job ${outcome}`);
      },
    }),
    // Stars refunds (`telegram.refund`: refundStarPayment once, then the refund recorded) with a Telegram bot.
    ...(config.telegram === null ? {} : serviceTelegramPayments(ctx).jobHandlers()),
  };
  const worker = new OutboxWorker(ctx.store, handlers, {
    // The pid names the process (replica) that holds a job's lease in the order view; the suffix keeps it unique.
    workerId: `serve-${process.pid}-${randomUUID().slice(0, 8)}`,
    clock: ctx.clock,
    leaseMs: config.leaseMs,
    concurrency: config.workerConcurrency,
    pollIntervalMs: config.workerPollMs,
    backoffBaseMs: config.retryBaseMs,
    onError: (error) => logger.error({ err: error }, 'outbox worker error'),
  });
  const reconciler = new ReconcileLoop(ctx.payments, {
    everyMs: config.reconcileEveryMs,
    afterMs: config.reconcileAfterMs,
    pending: new PendingReconciler(ctx, { olderThanMs: config.reconcilePendingAfterMs }),
    onPendingRun: (report) => {
      metrics.reconcileResolved.inc(report.changed);
      if (report.examined > 0) logger.info({ report }, 'pending attempts re-checked');
    },
    onRun: (report) => {
      metrics.reconcileRuns.inc({ result: 'ok' });
      metrics.reconcileResolved.inc(report.resolved);
      if (report.examined > 0 || report.parkedMatched > 0) logger.info({ report }, 'reconciliation run');
    },
    onError: (error) => {
      metrics.reconcileRuns.inc({ result: 'error' });
      logger.error({ err: error }, 'reconciliation failed');
    },
  });
  const purger = new ReceiptPurgeLoop(ctx.httpGuard, ctx.intakeGuard, {
    everyMs: config.receiptPurgeEveryMs,
    webhookRetentionMs: config.webhookReceiptRetentionMs,
    journal: { journal: ctx.journal, retentionMs: config.journalRetentionMs },
    onRun: (report) => {
      if (report.idempotencyKeys > 0 || report.webhookReceipts > 0 || report.journalRows > 0) {
        logger.info({ report }, 'receipts and journal rows purged');
      }
    },
    onError: (error) => logger.error({ err: error }, 'receipt purge failed'),
  });
  const publisher =
    config.brokerUrl === null
      ? null
      : publisherForUrl({ url: config.brokerUrl, subjectPrefix: config.brokerSubjectPrefix });
  const relay =
    publisher === null
      ? null
      : new OutboxRelay(ctx.store, publisher, {
          topics: ORDER_EVENT_TOPICS,
          clock: ctx.clock,
          leaseMs: config.leaseMs,
          onError: (error) => logger.error({ err: error }, 'outbox relay error'),
        });
  if (relay) registerRelayMetrics(relay, metrics.registry);
  worker.start();
  reconciler.start();
  purger.start();
  relay?.start();
  return Object.freeze({
    worker,
    reconciler,
    purger,
    relay,
    async stop() {
      abort.abort();
      await Promise.all([worker.stop(), reconciler.stop(), purger.stop(), relay?.stop()]);
      await publisher?.close();
    },
  });
}

/** Background jobs that start once the database is ready (`ServiceRuntime.readiness`). */
export interface DeferredBackgroundJobs {
  /** The running jobs, or `null` while the database has not answered yet (or after `stop()` came first). */
  readonly current: BackgroundJobs | null;
  /** Stops the jobs if they started, and keeps them from starting later; resolves when stopped. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts {@link startBackgroundJobs} as soon as `runtime.readiness` says the database answered and was migrated
 * (at once when it already has), so `serve` and `worker` can start while the database is down (issue 34 item 19).
 */
export function startBackgroundJobsWhenReady(runtime: ServiceRuntime): DeferredBackgroundJobs {
  let current: BackgroundJobs | null = runtime.readiness.ready ? startBackgroundJobs(runtime) : null;
  let stopped = false;
  void runtime.readiness.whenReady.then(() => {
    if (current !== null) return;
    if (!stopped) current = startBackgroundJobs(runtime);
  });
  return {
    get current() {
      return current;
    },
    async stop() {
      stopped = true;
      await current?.stop();
    },
  };
}

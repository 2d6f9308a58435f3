import { sql } from 'kysely';
import type { Clock } from 'payonce/internal/core/clock.js';
import { WebhookMetrics, type WebhookMetricsOptions } from 'payonce/internal/observe/webhook-metrics.js';
import { OUTBOX_TABLE, type OutboxDatabase } from 'payonce/internal/outbox/outbox-tables.js';
import { ATTEMPTS_TABLE, type PaymentsDatabase } from 'payonce/internal/payments/payments-tables.js';
import type { SqlStore } from 'payonce/internal/stores/sql/sql-store.js';
import { tablesOf } from 'payonce/internal/stores/sql/table-namespace.js';
import { Counter, Gauge } from 'prom-client';
import { withinMs } from './within-ms.js';

/** Options of {@link ServiceMetrics}. */
export interface ServiceMetricsOptions extends WebhookMetricsOptions {
  /** The service's SQL store, read at each scrape for the outbox and unknown-attempt gauges. */
  readonly store: SqlStore<unknown>;
  /** Clock for the outbox lag (epoch ms UTC). */
  readonly clock: Clock;
  /**
   * How long, in milliseconds, a scrape waits for each store-read gauge (and `countStuck`) before it reports the
   * gauge's last value instead. @default 2000 (the service passes `storeTimeoutMs`)
   */
  readonly storeTimeoutMs?: number;
}

function count(value: unknown): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) ? n : 0;
}

/**
 * The reference service's Prometheus metrics (prom-client): everything of `WebhookMetrics` (deliveries by
 * provider and decision, duplicate ratio, handler and delivery durations, receipt events, stuck receipts), plus
 * (default prefix `payonce_`):
 * - `payonce_checkouts_total{outcome}` counter: `created`, `existing`, `already-paid`, `error`;
 * - `payonce_fulfilments_total{kind,outcome}` counter: fulfil/refund jobs of this process by `performed`,
 *   `already-applied` (effect ledger hit on a re-run) or `skipped`;
 * - `payonce_payment_alerts_total` counter: mismatches and anomalies reported by `Payments`;
 * - `payonce_reconcile_runs_total{result}` counter (`ok`, `error`) and `payonce_reconcile_resolved_total`;
 * - `payonce_outbox_jobs{status}` gauge: jobs per status, store-wide, read at each scrape;
 * - `payonce_outbox_lag_seconds` gauge: age of the oldest claimable queued job (0 when none);
 * - `payonce_payment_attempts_unknown` gauge: attempts whose create result is unknown, awaiting reconciliation;
 * - `payonce_store_up` gauge: 1 when the database answered `select 1` within `storeTimeoutMs` at this scrape, else 0;
 * - `payonce_metrics_store_read_failures_total{gauge}` counter: store reads of a gauge that failed or timed out
 *   (written while the gauges still read, so a scrape's failures show from the next scrape).
 * A gauge whose query fails or does not answer within `storeTimeoutMs` keeps its last value, so the scrape still
 * answers 200 while the database is down or silent (issue 34 item H2).
 * @see docs/design.md §5 "Metrics" (unknown attempts, outbox lag); Prometheus exposition format 0.0.4.
 * @example const metrics = new ServiceMetrics({ store, clock }); metrics.observeIntake(intake);
 */
export class ServiceMetrics extends WebhookMetrics {
  /** Checkout calls by outcome. */
  readonly checkouts: Counter<'outcome'>;
  /** Fulfil and refund job effects by kind and outcome. */
  readonly fulfilments: Counter<'kind' | 'outcome'>;
  /** Payment alerts (mismatch, money on an order that can no longer take it). */
  readonly alerts: Counter;
  /** Reconciliation runs by result. */
  readonly reconcileRuns: Counter<'result'>;
  /** Attempts resolved by reconciliation. */
  readonly reconcileResolved: Counter;

  constructor(options: ServiceMetricsOptions) {
    super(options);
    const prefix = options.prefix ?? 'payonce_';
    const registers = [this.registry];
    const outbox = tablesOf<OutboxDatabase>(options.store);
    const attempts = tablesOf<PaymentsDatabase>(options.store);
    const { clock } = options;
    const waitMs = options.storeTimeoutMs ?? 2_000;
    const readFailures = new Counter({
      name: `${prefix}metrics_store_read_failures_total`,
      help: 'Store reads of a metrics gauge that failed or timed out (the gauge kept its last value).',
      labelNames: ['gauge'] as const,
      registers,
    });
    /** Runs one gauge's store read bounded by `waitMs`; true when it succeeded, false (counted) otherwise. */
    const read = async (gauge: string, work: () => Promise<void>): Promise<boolean> => {
      try {
        await withinMs(work(), waitMs, `${gauge} read`);
        return true;
      } catch {
        readFailures.inc({ gauge });
        return false;
      }
    };
    const db = options.store.db;
    this.checkouts = new Counter({
      name: `${prefix}checkouts_total`,
      help: 'Checkout calls by outcome (created, existing, already-paid, error).',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.fulfilments = new Counter({
      name: `${prefix}fulfilments_total`,
      help: 'Fulfil and refund job effects of this process by kind and outcome (performed, already-applied, skipped).',
      labelNames: ['kind', 'outcome'] as const,
      registers,
    });
    this.alerts = new Counter({
      name: `${prefix}payment_alerts_total`,
      help: 'Payment reports rejected (mismatch) or needing review.',
      registers,
    });
    this.reconcileRuns = new Counter({
      name: `${prefix}reconcile_runs_total`,
      help: 'Reconciliation runs by result (ok, error).',
      labelNames: ['result'] as const,
      registers,
    });
    this.reconcileResolved = new Counter({
      name: `${prefix}reconcile_resolved_total`,
      help: 'Attempts in creating/unknown resolved by reconciliation.',
      registers,
    });
    new Gauge({
      name: `${prefix}outbox_jobs`,
      help: 'Outbox jobs per status (queued, running, done, dead), store-wide.',
      labelNames: ['status'] as const,
      registers,
      async collect() {
        await read('outbox_jobs', async () => {
          const rows = await outbox
            .selectFrom(OUTBOX_TABLE)
            .select((eb) => ['status', eb.fn.countAll().as('n')])
            .groupBy('status')
            .execute();
          const seen = new Map(rows.map((row) => [row.status, count(row.n)]));
          for (const status of ['queued', 'running', 'done', 'dead']) this.set({ status }, seen.get(status) ?? 0);
        });
      },
    });
    new Gauge({
      name: `${prefix}outbox_lag_seconds`,
      help: 'Age of the oldest outbox job that is queued and claimable now, in seconds (0 when none).',
      registers,
      async collect() {
        await read('outbox_lag_seconds', async () => {
          const now = clock.now();
          const row = await outbox
            .selectFrom(OUTBOX_TABLE)
            .select((eb) => eb.fn.min('available_at').as('oldest'))
            .where('status', '=', 'queued')
            .where('available_at', '<=', now)
            .executeTakeFirst();
          const oldest = row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
          this.set(oldest === null ? 0 : Math.max(0, now - oldest) / 1000);
        });
      },
    });
    new Gauge({
      name: `${prefix}payment_attempts_unknown`,
      help: 'Payment attempts whose create result is unknown (timeout), awaiting reconciliation.',
      registers,
      async collect() {
        await read('payment_attempts_unknown', async () => {
          const row = await attempts
            .selectFrom(ATTEMPTS_TABLE)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('status', '=', 'unknown')
            .executeTakeFirst();
          this.set(count(row?.n));
        });
      },
    });
    new Gauge({
      name: `${prefix}store_up`,
      help: 'Whether the database answered select 1 within the store timeout at this scrape (1) or not (0).',
      registers,
      async collect() {
        this.set((await read('store_up', async () => void (await sql`select 1`.execute(db)))) ? 1 : 0);
      },
    });
  }
}

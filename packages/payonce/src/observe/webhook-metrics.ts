import type * as PromClient from 'prom-client';
import type { Counter, Histogram, Registry } from 'prom-client';
import { type Clock, systemClock } from '../core/clock.js';
import type { GuardEventName, GuardListener } from '../core/guard-events.js';
import { requirePeer } from '../core/import-peer.js';
import { positiveInt } from '../core/options.js';
import type { RequestKey } from '../core/request-key.js';
import type { IntakeEventName, IntakeListener } from '../webhooks/intake-events.js';
import { DELIVERY_DECISIONS, type DeliveryDecision } from '../webhooks/journal/delivery-record.js';

// prom-client is an optional peer: importing `payonce/observe` without it throws MissingPeer naming it.
const prom = requirePeer<typeof PromClient>('prom-client', 'payonce/observe');

/** The part of `IdempotencyGuard` the metrics listen to. */
export interface GuardEventSource {
  on<E extends GuardEventName>(name: E, listener: GuardListener<E>): () => void;
}

/** The part of a `WebhookIntake` the metrics listen to. */
export interface IntakeEventSource {
  on<E extends IntakeEventName>(name: E, listener: IntakeListener<E>): () => void;
}

/** Options of {@link WebhookMetrics}. */
export interface WebhookMetricsOptions {
  /** Registry the metrics are registered in. @default a new `Registry` (not prom-client's global one) */
  registry?: Registry;
  /** Prefix of every metric name. @default 'payonce_' */
  prefix?: string;
  /**
   * Age, in milliseconds, after which a receipt claimed in this process and not yet finished counts as stuck.
   * @default 60_000
   */
  stuckAfterMs?: number;
  /**
   * Store-wide count of receipts stuck in `processing` (e.g. `sqlStuckReceipts(store, …)`), read at every
   * scrape; when absent the gauge counts the claims of this process only. When it throws, the gauge keeps its
   * last value and the scrape still answers; bound its wait yourself (the reference service does).
   */
  countStuck?: () => Promise<number> | number;
  /** Histogram buckets of the handler duration, in seconds. @default [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] */
  durationBucketsSeconds?: number[];
  /** Clock for the age of in-process claims. @default systemClock */
  clock?: Clock;
}

const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const slot = (key: RequestKey): string => JSON.stringify([key.provider, key.externalId]);

/**
 * Prometheus metrics of webhook intake and receipts (prom-client), fed only by listening to guard events and
 * intake `delivery` events — core and the intake never import prom-client. Series (with the default prefix):
 * - `payonce_webhook_deliveries_total{provider,decision}` counter: one per delivery; decision `new`,
 *   `duplicate`, `in-progress` or `rejected`;
 * - `payonce_webhook_duplicate_ratio{provider}` gauge: duplicates / (new + duplicate + in-progress), 0 to 1;
 * - `payonce_webhook_delivery_duration_seconds{provider,decision}` histogram: intake wall time per delivery;
 * - `payonce_webhook_handler_duration_seconds{provider,outcome}` histogram: handler run time under a claim,
 *   outcome `completed` or `failed` (from `receipt:completed` / `receipt:failed`);
 * - `payonce_receipt_events_total{provider,event}` counter: every guard event (`claimed`, `takeover`, `replayed`,
 *   `in-progress`, `completed`, `failed`, `claim-lost`, `payload-mismatch`);
 * - `payonce_receipts_stuck` gauge: receipts in `processing` older than `stuckAfterMs` (store-wide with
 *   `countStuck`, else this process's claims).
 * @throws {InvalidOption} a bad `stuckAfterMs`.
 * @see docs/design.md §5 "Metrics"; STYLE pattern 12; Prometheus exposition format 0.0.4.
 * @example const metrics = new WebhookMetrics(); metrics.observeGuard(guard); metrics.observeIntake(intake);
 */
export class WebhookMetrics {
  /** The registry holding these metrics; serve `await registry.metrics()` with `registry.contentType`. */
  readonly registry: Registry;
  private readonly deliveries: Counter<'provider' | 'decision'>;
  private readonly deliveryDuration: Histogram<'provider' | 'decision'>;
  private readonly handlerDuration: Histogram<'provider' | 'outcome'>;
  private readonly receiptEvents: Counter<'provider' | 'event'>;
  private readonly counts = new Map<string, Record<DeliveryDecision, number>>();
  private readonly claims = new Map<string, number>();
  private readonly clock: Clock;
  private readonly stuckAfterMs: number;
  /** True when the stuck gauge counts in memory (`claims`); with `countStuck` the claims are not tracked here. */
  private readonly tracksClaims: boolean;

  constructor(options: WebhookMetricsOptions = {}) {
    const registry = options.registry ?? new prom.Registry();
    const prefix = options.prefix ?? 'payonce_';
    const stuckAfterMs = positiveInt('stuckAfterMs', options.stuckAfterMs ?? 60_000);
    this.registry = registry;
    this.clock = options.clock ?? systemClock;
    this.stuckAfterMs = stuckAfterMs;
    this.tracksClaims = options.countStuck === undefined;
    const registers = [registry];
    const buckets = options.durationBucketsSeconds ?? DEFAULT_BUCKETS;
    this.deliveries = new prom.Counter({
      name: `${prefix}webhook_deliveries_total`,
      help: 'Webhook deliveries by provider and intake decision (new, duplicate, in-progress, rejected).',
      labelNames: ['provider', 'decision'] as const,
      registers,
    });
    const counts = this.counts;
    new prom.Gauge({
      name: `${prefix}webhook_duplicate_ratio`,
      help: 'Share of authentic webhook deliveries that were duplicates: duplicate / (new + duplicate + in-progress).',
      labelNames: ['provider'] as const,
      registers,
      collect() {
        for (const [provider, c] of counts) {
          const total = c.new + c.duplicate + c['in-progress'];
          this.set({ provider }, total === 0 ? 0 : c.duplicate / total);
        }
      },
    });
    this.deliveryDuration = new prom.Histogram({
      name: `${prefix}webhook_delivery_duration_seconds`,
      help: 'Time from receiving a webhook body to its response, by provider and decision.',
      labelNames: ['provider', 'decision'] as const,
      buckets,
      registers,
    });
    this.handlerDuration = new prom.Histogram({
      name: `${prefix}webhook_handler_duration_seconds`,
      help: 'Run time of webhook handlers under a receipt claim, by provider and outcome (completed, failed).',
      labelNames: ['provider', 'outcome'] as const,
      buckets,
      registers,
    });
    this.receiptEvents = new prom.Counter({
      name: `${prefix}receipt_events_total`,
      help: 'Receipt guard events by provider and event (claimed, takeover, replayed, in-progress, completed, failed, claim-lost, payload-mismatch).',
      labelNames: ['provider', 'event'] as const,
      registers,
    });
    const { claims, clock } = this;
    const countStuck = options.countStuck;
    new prom.Gauge({
      name: `${prefix}receipts_stuck`,
      help: 'Receipts in processing for longer than the stuck threshold.',
      registers,
      async collect() {
        if (countStuck) {
          try {
            this.set(await countStuck());
          } catch {
            // the store is down: keep the last value, so the rest of the scrape still answers (issue 34 item H2)
          }
          return;
        }
        const cutoff = clock.now() - stuckAfterMs;
        let stuck = 0;
        for (const claimedAt of claims.values()) if (claimedAt <= cutoff) stuck++;
        this.set(stuck);
      },
    });
  }

  /**
   * Listens to a guard's receipt events (handler duration, receipt events, in-process stuck claims).
   * @returns a function that stops listening.
   */
  observeGuard(guard: GuardEventSource): () => void {
    const event = (key: RequestKey, name: string) => this.receiptEvents.inc({ provider: key.provider, event: name });
    const tracks = this.tracksClaims;
    const done = (key: RequestKey) => tracks && this.claims.delete(slot(key));
    const offs = [
      guard.on('receipt:claimed', ({ key, takeover }) => {
        event(key, takeover ? 'takeover' : 'claimed');
        if (tracks) this.claims.set(slot(key), this.clock.now());
      }),
      guard.on('receipt:replayed', ({ key }) => event(key, 'replayed')),
      guard.on('receipt:in-progress', ({ key }) => event(key, 'in-progress')),
      guard.on('receipt:completed', ({ key, durationMs }) => {
        event(key, 'completed');
        done(key);
        this.handlerDuration.observe({ provider: key.provider, outcome: 'completed' }, durationMs / 1000);
      }),
      guard.on('receipt:failed', ({ key, durationMs }) => {
        event(key, 'failed');
        done(key);
        this.handlerDuration.observe({ provider: key.provider, outcome: 'failed' }, durationMs / 1000);
      }),
      guard.on('receipt:claim-lost', ({ key }) => {
        event(key, 'claim-lost');
        done(key);
      }),
      guard.on('receipt:payload-mismatch', ({ key }) => event(key, 'payload-mismatch')),
    ];
    return () => {
      for (const off of offs) off();
    };
  }

  /**
   * Listens to an intake's `delivery` events (deliveries by decision, duplicate ratio, delivery duration).
   * @returns a function that stops listening.
   */
  observeIntake(intake: IntakeEventSource): () => void {
    return intake.on('delivery', ({ record }) => {
      const { provider, decision } = record;
      this.deliveries.inc({ provider, decision });
      this.deliveryDuration.observe({ provider, decision }, record.durationMs / 1000);
      let c = this.counts.get(provider);
      if (!c) {
        c = Object.fromEntries(DELIVERY_DECISIONS.map((d) => [d, 0])) as Record<DeliveryDecision, number>;
        this.counts.set(provider, c);
      }
      c[decision]++;
    });
  }

  /** The exposition text of the registry (Prometheus text format 0.0.4). */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  /** The `Content-Type` of {@link metrics}. */
  get contentType(): string {
    return this.registry.contentType;
  }
}

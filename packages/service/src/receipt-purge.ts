import type { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { PeriodicTask } from 'payonce/internal/core/periodic-task.js';
import { runHousekeeping } from 'payonce/internal/webhooks/housekeeping.js';
import type { DeliveryJournal } from 'payonce/internal/webhooks/journal/delivery-journal.js';
import { stripeProfile } from 'payonce/internal/webhooks/providers/stripe-profile.js';
import { sandboxStandardWebhooksProfile } from './sandbox-standard-webhooks-profile.js';

/** `Idempotency-Key` receipts of the service live under this provider (the HTTP layer's default namespace). */
const HTTP_NAMESPACE = 'http';
/** Expiry of an `Idempotency-Key` (docs/design.md §4, Stripe's 24 h): the same as the HTTP layer's default `expiryMs`. */
export const IDEMPOTENCY_KEY_EXPIRY_MS = 86_400_000;

/** What one purge run deleted, per kind of receipt. */
export interface ReceiptPurgeReport {
  /** Finished `Idempotency-Key` receipts older than 24 h, and abandoned claims whose last heartbeat is. */
  readonly idempotencyKeys: number;
  /** Finished webhook intake receipts older than the webhook retention, and abandoned claims whose last heartbeat is. */
  readonly webhookReceipts: number;
  /** Webhook delivery journal rows older than the journal retention. */
  readonly journalRows: number;
}

/** Options of {@link ReceiptPurgeLoop}; durations in ms. */
export interface ReceiptPurgeOptions {
  /** Interval between runs (the first run after one interval). */
  readonly everyMs: number;
  /** Age past which a finished webhook receipt is deleted; keep it above the providers' redelivery window. */
  readonly webhookRetentionMs: number;
  /** The delivery journal and the age past which its rows are deleted; none: the journal is not purged. */
  readonly journal?: { readonly journal: DeliveryJournal; readonly retentionMs: number };
  readonly onRun?: (report: ReceiptPurgeReport) => void;
  readonly onError?: (error: unknown) => void;
}

/**
 * The service's periodic receipt purge (docs/design.md §3 "Purge", §4 "expired keys are purged"): every `everyMs` it deletes
 * finished (`completed`/`failed`) `Idempotency-Key` receipts older than 24 h (provider `http` only) from the HTTP
 * guard, and finished webhook receipts of the service's endpoints (providers of the Stripe and Standard Webhooks
 * profiles) older than `webhookRetentionMs` from the intake guard (SQL or Redis), and, with `journal`, delivery
 * journal rows older than its `retentionMs`. Each purge is scoped to its providers, so the payments layer's own
 * receipts are never touched. Abandoned claims go with the same retentions: a `processing` receipt whose last
 * heartbeat is older than the cut-off and whose lease expired (its worker died and the key never came back;
 * docs/design.md §3 "Purge"); a live claim renews its heartbeat and is never deleted. One run at a time; `stop()`
 * waits for the running one.
 * @example const loop = new ReceiptPurgeLoop(httpGuard, intakeGuard, { everyMs: 3_600_000, webhookRetentionMs: 7 * 86_400_000 });
 */
export class ReceiptPurgeLoop {
  private readonly periodic: PeriodicTask;
  private readonly webhookProviders: readonly string[];

  constructor(
    private readonly httpGuard: IdempotencyGuard,
    private readonly intakeGuard: IdempotencyGuard,
    private readonly options: ReceiptPurgeOptions,
  ) {
    this.webhookProviders = [...new Set([stripeProfile().provider, sandboxStandardWebhooksProfile().provider])];
    this.periodic = new PeriodicTask(
      options.everyMs,
      async () => options.onRun?.(await this.runOnce()),
      options.onError,
    );
  }

  /** One purge now; what it deleted. @throws {StoreUnavailable} when a store fails. */
  async runOnce(): Promise<ReceiptPurgeReport> {
    const { webhookRetentionMs, journal } = this.options;
    const report = await runHousekeeping({
      receipts: [
        { guard: this.httpGuard, olderThanMs: IDEMPOTENCY_KEY_EXPIRY_MS, provider: HTTP_NAMESPACE },
        ...this.webhookProviders.map((provider) => ({
          guard: this.intakeGuard,
          olderThanMs: webhookRetentionMs,
          provider,
        })),
      ],
      ...(journal ? { journal: { journal: journal.journal, olderThanMs: journal.retentionMs } } : {}),
    });
    const [idempotencyKeys = 0, ...webhooks] = report.receipts;
    return { idempotencyKeys, webhookReceipts: webhooks.reduce((sum, n) => sum + n, 0), journalRows: report.journal };
  }

  /** Starts the timer (the first run after `everyMs`). Idempotent. */
  start(): void {
    this.periodic.start();
  }

  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void> {
    return this.periodic.stop();
  }
}

import type { IdempotencyGuard } from 'payonce/internal/core/idempotency-guard.js';
import { RequestKey } from 'payonce/internal/core/request-key.js';
import type { TokenBucket } from 'payonce/internal/core/token-bucket.js';
import { toAttempt } from 'payonce/internal/payments/payment-attempt.js';
import type { AttemptReconciliation } from 'payonce/internal/payments/reconcile-attempt.js';
import type { ServiceContext } from '../service-context.js';
import { ServiceError } from '../service-error.js';
import { type AdminActor, journalAction } from './admin-audit.js';
import { type DeliveryFilter, type DeliveryRow, deliveriesInRange } from './admin-lists.js';
import { type AdminReads, staleAfterFor } from './admin-reads.js';
import type { DeliveryReplayer, ReplayItem } from './delivery-replay.js';
import { markJournaled } from './failed-action.js';

/** The answer of an action: what it did (or, in a dry run, would do) and the id of its journal row. */
export interface ActionResult<T> {
  readonly actionId: string;
  readonly dryRun: boolean;
  readonly result: T;
}

/** Release of a stuck claim: the receipt key and the attempt number (fencing token) the operator saw. */
export interface ReleaseInput {
  readonly provider: string;
  readonly externalId: string;
  readonly expectedAttempts: number;
}

/** What reconciling one attempt found: the provider's view and the decision taken (`applied`, `unchanged`, …). */
export interface ReconcileOutcome {
  /** `not-found`, `unchanged`, `lookup-failed`, or the payment journal's decision (`applied`, `rejected`, …). */
  readonly outcome: string;
  readonly status?: string;
  readonly from?: string;
  readonly to?: string;
  readonly reason?: string | null;
  readonly error?: string;
}

/** The console's answer for one attempt's reconciliation (`event` mode). */
function reconcileOutcomeOf(done: AttemptReconciliation): ReconcileOutcome {
  const status = done.attempt.status;
  switch (done.outcome) {
    case 'lookup-failed':
      return {
        outcome: 'lookup-failed',
        status,
        error: done.error instanceof Error ? done.error.message : String(done.error),
      };
    case 'event-applied':
      return { outcome: done.result.decision, from: status, to: done.payment.status, reason: done.result.reason };
    case 'unchanged':
    case 'not-found':
      return { outcome: done.outcome, status };
    default:
      throw new Error(`reconcile-attempt answered ${done.outcome} in event mode`);
  }
}

/** Most deliveries one range replay selects. */
export const MAX_REPLAY_RANGE = 100;

/**
 * The operator actions of the console, each journaled in `payonce_admin_actions` with who and when (refusals
 * too): release a stuck claim, retry a failed webhook receipt, rerun a dead job, reconcile one attempt, replay one
 * delivery or a range. Idempotency of the HTTP calls is the `Idempotency-Key` adapter's (`/admin/api`); each
 * action is also safe by itself (a compare-and-set or a conditional update), so two operators never double-act.
 */
export class AdminActions {
  private readonly ctx: ServiceContext;
  private readonly reads: AdminReads;
  private readonly replayer: DeliveryReplayer;
  private readonly bucket: TokenBucket;
  private readonly providerAvailable: boolean;

  constructor(
    ctx: ServiceContext,
    reads: AdminReads,
    replayer: DeliveryReplayer,
    bucket: TokenBucket,
    providerAvailable: boolean,
  ) {
    this.ctx = ctx;
    this.reads = reads;
    this.replayer = replayer;
    this.bucket = bucket;
    this.providerAvailable = providerAvailable;
  }

  /** Runs `act`, journals its result or its refusal (a `ServiceError`), and returns it. */
  private async journaled<T>(
    actor: AdminActor,
    action: string,
    target: string,
    dryRun: boolean,
    act: () => Promise<{ result: T; orderId: string | null }>,
  ): Promise<ActionResult<T>> {
    const at = this.ctx.clock.now();
    let outcome: { result: T; orderId: string | null };
    try {
      outcome = await act();
    } catch (error) {
      if (error instanceof ServiceError) {
        const detail = { code: error.code, message: error.message };
        await journalAction(this.reads.db, this.reads.redactor, at, {
          actor,
          action,
          target,
          orderId: null,
          dryRun,
          outcome: 'refused',
          detail,
        });
        this.ctx.logger.info({ actor: actor.name, action, target, refused: error.code }, 'operator action refused');
        markJournaled(error);
      }
      throw error;
    }
    const actionId = await journalAction(this.reads.db, this.reads.redactor, at, {
      actor,
      action,
      target,
      orderId: outcome.orderId,
      dryRun,
      outcome: dryRun ? 'dry-run' : 'done',
      detail: outcome.result,
    });
    this.ctx.logger.info({ actor: actor.name, action, target, dryRun, actionId }, 'operator action');
    return { actionId, dryRun, result: outcome.result };
  }

  private guardFor(provider: string): IdempotencyGuard {
    if (provider.startsWith('payments:')) return this.ctx.payments.guard as unknown as IdempotencyGuard;
    if (this.reads.stale.webhookProviders.includes(provider)) return this.ctx.intakeGuard;
    return this.ctx.httpGuard;
  }

  /**
   * Releases a stuck claim: a compare-and-set takeover of the receipt at the attempt number the operator saw
   * (`expectedAttempts`), then marks that new claim `failed` with who released it, so the next delivery (or the
   * client's retry) takes it and runs; the old holder, if it is still alive, is fenced (its completion is refused,
   * `CLAIM_LOST`). Refused with `CLAIM_NOT_STALE` when the receipt is not `processing`, its claim is younger than
   * its stale limit, or its attempt changed.
   * @throws {ServiceError} `RECEIPT_NOT_FOUND`, `CLAIM_NOT_STALE`.
   */
  releaseClaim(actor: AdminActor, input: ReleaseInput) {
    const target = `receipt:${input.provider}/${input.externalId}`;
    return this.journaled(actor, 'release-claim', target, false, async () => {
      const key = new RequestKey(input.provider, input.externalId);
      const store = this.guardFor(input.provider).store;
      const receipt = await store.find(key);
      if (!receipt) throw new ServiceError('RECEIPT_NOT_FOUND', `no receipt ${target}`);
      const now = this.ctx.clock.now();
      const staleAfterMs = staleAfterFor(this.reads.stale, input.provider);
      if (receipt.status !== 'processing') {
        throw new ServiceError('CLAIM_NOT_STALE', `the receipt is ${receipt.status}, not a claim in processing`);
      }
      if (receipt.attempts !== input.expectedAttempts) {
        throw new ServiceError(
          'CLAIM_NOT_STALE',
          `the claim is now attempt ${receipt.attempts}, not ${input.expectedAttempts}`,
        );
      }
      const ageMs = now - receipt.claimedAtMs;
      if (ageMs < staleAfterMs) {
        throw new ServiceError('CLAIM_NOT_STALE', `the claim is ${ageMs} ms old; it is stale after ${staleAfterMs} ms`);
      }
      const taken = await store.takeover({
        key,
        expectedStatus: 'processing',
        expectedAttempts: receipt.attempts,
        nowMs: now,
      });
      if (!taken) throw new ServiceError('CLAIM_NOT_STALE', 'the receipt changed while it was being released');
      const error = `RELEASED_BY_OPERATOR: stale claim of attempt ${receipt.attempts} released by ${actor.name}`;
      const failed = await store.fail({ key, attempt: taken.attempts, nowMs: now, error });
      if (!failed) throw new ServiceError('CLAIM_NOT_STALE', 'the receipt changed while it was being released');
      return {
        result: {
          receipt: {
            provider: input.provider,
            externalId: input.externalId,
            status: 'failed',
            attempts: taken.attempts,
          },
          releasedAttempt: receipt.attempts,
          claimAgeMs: ageMs,
        },
        orderId: null,
      };
    });
  }

  /**
   * Retries a failed webhook receipt now: replays its newest authentic journaled delivery through the intake,
   * which takes the failed receipt over and runs the handler again.
   * @throws {ServiceError} `RECEIPT_NOT_FOUND`; `RECEIPT_NOT_RETRYABLE` when it is not `failed`, not a webhook
   *   receipt, or no authentic delivery of it is journaled.
   */
  retryReceipt(actor: AdminActor, input: { provider: string; externalId: string }) {
    const target = `receipt:${input.provider}/${input.externalId}`;
    return this.journaled(actor, 'retry-receipt', target, false, async () => {
      const key = new RequestKey(input.provider, input.externalId);
      const receipt = await this.guardFor(input.provider).store.find(key);
      if (!receipt) throw new ServiceError('RECEIPT_NOT_FOUND', `no receipt ${target}`);
      if (receipt.status !== 'failed')
        throw new ServiceError('RECEIPT_NOT_RETRYABLE', `the receipt is ${receipt.status}`);
      if (!this.reads.stale.webhookProviders.includes(input.provider)) {
        throw new ServiceError(
          'RECEIPT_NOT_RETRYABLE',
          'only webhook receipts can be retried here; an Idempotency-Key request is retried by its own client',
        );
      }
      const row = await this.reads.db
        .selectFrom('payonce_webhook_deliveries')
        .selectAll()
        .where('provider', '=', input.provider)
        .where('event_key', '=', input.externalId)
        .where('signature', '=', 'valid')
        .orderBy('received_at', 'desc')
        .executeTakeFirst();
      if (!row) throw new ServiceError('RECEIPT_NOT_RETRYABLE', 'no authentic delivery of this receipt is journaled');
      const item = await this.replayer.replay(row);
      if (item.verdict === 'refused') throw new ServiceError('RECEIPT_NOT_RETRYABLE', item.reason);
      return { result: item, orderId: await this.orderOfDelivery(row) };
    });
  }

  /**
   * Reruns a dead-lettered outbox job: one conditional UPDATE `dead → queued` (fresh runs), so it is rerun once
   * however many operators press the button; the effect ledger keeps its effect single.
   * @throws {ServiceError} `JOB_NOT_FOUND`; `JOB_NOT_DEAD` when it is not (or no longer) dead.
   */
  rerunDeadJob(actor: AdminActor, jobId: string) {
    return this.journaled(actor, 'rerun-job', `job:${jobId}`, false, async () => {
      const job = await this.ctx.outbox.findById(jobId);
      if (!job) throw new ServiceError('JOB_NOT_FOUND', `job ${jobId} not found`);
      const orderId = job.dedupeKey.startsWith('order:') ? job.dedupeKey.slice('order:'.length) : null;
      if (job.status !== 'dead') throw new ServiceError('JOB_NOT_DEAD', `job ${jobId} is ${job.status}, not dead`);
      const requeued = await this.ctx.outbox.requeueIfStill(job, ['dead']);
      if (requeued === null) throw new ServiceError('JOB_NOT_DEAD', `job ${jobId} was rerun meanwhile`);
      return { result: { job: { id: job.id, topic: job.topic, status: 'queued', lastError: job.lastError } }, orderId };
    });
  }

  /**
   * Reconciles one attempt now: asks the provider about it by merchant reference and, when the provider reports
   * another status, applies it as a provider event (`eventType: 'reconciliation'`, receipt `reconcile-admin:…`)
   * through `payments.reconcileAttempt` in `event` mode (`applyProviderEvent`: same checks, forward-only,
   * journaled, fulfilment once). A provider that knows no
   * payment yet changes nothing (the reconciliation loop re-sends the create of a `creating`/`unknown` attempt with
   * its own idempotency key).
   * @throws {ServiceError} `ATTEMPT_NOT_FOUND`; `ADMIN_ACTION_UNAVAILABLE` without a provider.
   */
  reconcileAttempt(actor: AdminActor, attemptId: string) {
    return this.journaled<ReconcileOutcome>(actor, 'reconcile-attempt', `attempt:${attemptId}`, false, async () => {
      const row = await this.reads.db
        .selectFrom('payonce_payment_attempts')
        .selectAll()
        .where('id', '=', attemptId)
        .executeTakeFirst();
      if (!row) throw new ServiceError('ATTEMPT_NOT_FOUND', `attempt ${attemptId} not found`);
      if (!this.providerAvailable) {
        throw new ServiceError('ADMIN_ACTION_UNAVAILABLE', 'no provider is configured here (pass --provider-url)');
      }
      const attempt = toAttempt(row);
      const mode = { as: 'event', receiptPrefix: 'reconcile-admin' } as const;
      const done = await this.ctx.payments.reconcileAttempt(attempt, mode);
      return { result: reconcileOutcomeOf(done), orderId: attempt.orderId };
    });
  }

  /**
   * Replays one journaled delivery through the intake, or (dry run) says what that would do.
   * @throws {ServiceError} `DELIVERY_NOT_FOUND`; `DELIVERY_NOT_REPLAYABLE` (forgery, nothing journaled, endpoint
   *   not configured); `ADMIN_RATE_LIMITED`.
   */
  replayDelivery(actor: AdminActor, deliveryId: string, dryRun: boolean) {
    return this.journaled(actor, 'replay-delivery', `delivery:${deliveryId}`, dryRun, async () => {
      const row = await this.reads.db
        .selectFrom('payonce_webhook_deliveries')
        .selectAll()
        .where('id', '=', deliveryId)
        .executeTakeFirst();
      if (!row) throw new ServiceError('DELIVERY_NOT_FOUND', `delivery ${deliveryId} not found`);
      const orderId = await this.orderOfDelivery(row);
      const planned = await this.replayer.plan(row);
      if (planned.verdict === 'refused') throw new ServiceError('DELIVERY_NOT_REPLAYABLE', planned.reason);
      if (dryRun) return { result: planned, orderId };
      this.spend(1);
      return { result: await this.replayer.replay(row), orderId };
    });
  }

  /**
   * Replays the deliveries `filter` selects (newest first, at most `limit` ≤ 100), each event key once (its
   * newest row), through the intake; forgeries and rows without a payload are listed as `refused` and skipped. A
   * dry run plans every one and changes nothing (never rate-limited).
   * @throws {ServiceError} `ADMIN_RATE_LIMITED` (nothing replayed), `ADMIN_QUERY_INVALID` for a limit over 100.
   */
  replayRange(actor: AdminActor, filter: DeliveryFilter, limit: number, dryRun: boolean) {
    const target = `range:${JSON.stringify(filter)}`;
    return this.journaled(actor, 'replay-range', target, dryRun, async () => {
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_REPLAY_RANGE) {
        throw new ServiceError('ADMIN_QUERY_INVALID', `limit must be 1–${MAX_REPLAY_RANGE}`);
      }
      const rows = await deliveriesInRange(this.reads, filter, limit);
      const seen = new Set<string>();
      const chosen: DeliveryRow[] = [];
      for (const row of rows) {
        const key = row.event_key === null ? `row:${row.id}` : `${row.provider}\u0000${row.event_key}`;
        if (row.signature === 'valid' && seen.has(key)) continue;
        if (row.signature === 'valid') seen.add(key);
        chosen.push(row);
      }
      const planned: ReplayItem[] = [];
      for (const row of chosen) planned.push(await this.replayer.plan(row));
      const summary = (items: readonly ReplayItem[]) => {
        const byVerdict: Record<string, number> = {};
        for (const item of items) byVerdict[item.verdict] = (byVerdict[item.verdict] ?? 0) + 1;
        return { selected: rows.length, considered: items.length, byVerdict, items };
      };
      if (dryRun) return { result: summary(planned), orderId: null };
      const toSend = planned.filter((item) => item.verdict !== 'refused').length;
      this.spend(toSend);
      const done: ReplayItem[] = [];
      for (const [index, row] of chosen.entries()) {
        const plan = planned[index];
        done.push(plan && plan.verdict === 'refused' ? plan : await this.replayer.replay(row));
      }
      return { result: summary(done), orderId: null };
    });
  }

  private spend(n: number): void {
    if (n === 0) return;
    if (n > this.bucket.size) {
      throw new ServiceError('ADMIN_QUERY_INVALID', `at most ${this.bucket.size} deliveries per replay request`);
    }
    const waitMs = this.bucket.take(n);
    if (waitMs > 0) {
      throw new ServiceError(
        'ADMIN_RATE_LIMITED',
        `replay rate limit reached; try again in ${Math.ceil(waitMs / 1000)} s`,
      );
    }
  }

  /** The order a delivery is about (by merchant reference = attempt id, or provider payment id), or `null`. */
  private async orderOfDelivery(row: DeliveryRow): Promise<string | null> {
    const refs = [row.merchant_reference, row.payment_id].filter((r): r is string => r !== null);
    if (refs.length === 0) return null;
    const attempt = await this.reads.db
      .selectFrom('payonce_payment_attempts')
      .select(['order_id', 'created_at'])
      .where((eb) => eb.or([eb('id', 'in', refs), eb('provider_payment_id', 'in', refs)]))
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    return attempt ? attempt.order_id : null;
  }
}

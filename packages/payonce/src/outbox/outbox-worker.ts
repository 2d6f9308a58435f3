import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { type Clock, systemClock } from '../core/clock.js';
import { cutToCodePoints } from '../core/code-points.js';
import { PollLoop } from '../core/poll-loop.js';
import { PAYONCE_ATTRIBUTES as A } from '../otel/attributes.js';
import { recordSeconds } from '../otel/meters.js';
import { inSpan, recordPastSpan } from '../otel/span-scope.js';
import { activeTracer } from '../otel/tracing.js';
import { tablesIn } from '../stores/sql/table-namespace.js';
import { backoffDelayMs } from './backoff.js';
import { claimJob } from './claim-job.js';
import { type EffectResult, runEffectOnce } from './effect-ledger.js';
import type { OutboxJob } from './outbox-job.js';
import { OUTBOX_TABLE, type OutboxDatabase } from './outbox-tables.js';
import { jobTracesOf } from './outbox-trace.js';
import {
  type OutboxWorkerOptions,
  type ResolvedOutboxWorkerOptions,
  resolveOutboxWorkerOptions,
} from './outbox-worker-options.js';
import { PermanentJobFailure } from './permanent-job-failure.js';
import { type SqlTarget, transaction } from './sql-transaction.js';

/** What a job handler gets besides the job. */
export interface JobContext<DB> {
  /** 1 on the first run, higher on retries and after a crashed worker's lease expired. */
  readonly attempt: number;
  /**
   * Runs `effect` at most once per `effectKey`, recording the key in the same transaction as the effect (the
   * effect ledger); on a re-run it answers `already-applied` without running it. @see `runEffectOnce`.
   */
  once<T>(effectKey: string, effect: (trx: Transaction<DB>) => Promise<T>): Promise<EffectResult<T>>;
}

/**
 * Handles one job of a topic. Throwing schedules a retry (or the dead letter after `maxAttempts`); throwing a
 * `PermanentJobFailure` moves the job to the dead letter at once.
 */
export type JobHandler<DB> = (job: OutboxJob, context: JobContext<DB>) => Promise<void>;

/**
 * What `runOnce` did with the job it claimed: `done`; `retry` (failed, queued again at `nextAttemptAtMs`); `dead`
 * (failed its last allowed run, kept as a dead letter with `error`); `lease-lost` (the lease expired and another
 * worker took the job over before this one finished: nothing recorded by this worker).
 */
export type JobRunResult =
  | { readonly jobId: string; readonly outcome: 'done'; readonly attempt: number }
  | {
      readonly jobId: string;
      readonly outcome: 'retry';
      readonly attempt: number;
      readonly error: string;
      readonly nextAttemptAtMs: number;
    }
  | { readonly jobId: string; readonly outcome: 'dead'; readonly attempt: number; readonly error: string }
  | { readonly jobId: string; readonly outcome: 'lease-lost'; readonly attempt: number };

/**
 * The dead-letter reason of a job claimed `runs` times without any run recording a result: all that is known is
 * that each lease expired first — the worker died, or the handler ran longer than `leaseMs` (keep the lease above
 * the slowest run, docs/outbox.md).
 */
function leaseExpiredReason(runs: number): string {
  return `the lease expired before the run finished on each of ${runs} runs: the worker died or the job ran longer than the lease`;
}

function errorText(error: unknown, maxChars: number): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return cutToCodePoints(text, maxChars);
}

/**
 * Runs outbox jobs (docs/design.md §7), `concurrency` at once (default 4), each lane claiming one job at a time with a lease (`claimJob`: `FOR UPDATE SKIP LOCKED` on
 * PostgreSQL and MySQL, one UPDATE on SQLite), runs the topic's handler, then marks it `done`, or on failure
 * re-queues it after an exponential backoff with jitter, or after `maxAttempts` runs (or at once, for a
 * `PermanentJobFailure`) moves it to the dead letter with its last error. A worker that dies mid-job leaves the lease to expire; another worker then claims the
 * job again (attempt + 1). Finishing is fenced by (lease owner, attempt), so a worker whose lease was taken over
 * cannot overwrite the new owner's result. Handlers make effects exactly-once with `context.once` (the effect
 * ledger), since a job may run more than once. Keep `leaseMs` above the longest handler run.
 * @see docs/design.md §7; issue 5 "a worker with leases".
 * @example
 * const worker = new OutboxWorker(store, { 'order.fulfil': async (job, ctx) => {
 *   await ctx.once(`fulfil:${job.dedupeKey}`, (trx) => shipOrder(trx, job.payload));
 * } });
 * worker.start();
 */
export class OutboxWorker<DB> {
  readonly options: ResolvedOutboxWorkerOptions;
  private readonly target: SqlTarget<DB>;
  private readonly handlers: Readonly<Record<string, JobHandler<DB>>>;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly onError: (error: unknown) => void;
  private readonly loop: PollLoop;

  /** @throws {InvalidOption} for a bad option (see `OutboxWorkerOptions`). */
  constructor(target: SqlTarget<DB>, handlers: Record<string, JobHandler<DB>>, options: OutboxWorkerOptions = {}) {
    this.target = target;
    this.handlers = Object.freeze({ ...handlers });
    this.options = resolveOutboxWorkerOptions(options, randomUUID());
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.onError = options.onError ?? (() => {});
    this.loop = new PollLoop({
      round: async () => (await this.runOnce()) !== null,
      idleMs: this.options.pollIntervalMs,
      lanes: this.options.concurrency,
      onError: (error) => this.onError(error),
    });
  }

  /**
   * Claims and runs ONE job of this worker's topics; `null` when none is claimable now. With an OpenTelemetry SDK
   * registered the run is the span `payonce.outbox.run`, a child of the job's enqueue span (its stored trace
   * context), with the claim (`payonce.outbox.claim`) and each `context.once` (`payonce.outbox.effect`) under it;
   * `payonce.outbox.lag` records the time from the job being due to its claim.
   */
  async runOnce(): Promise<JobRunResult | null> {
    const { workerId, leaseMs } = this.options;
    const claimedFromMs = Date.now();
    const nowMs = this.clock.now();
    const job = await claimJob(this.target, { topics: Object.keys(this.handlers), workerId, nowMs, leaseMs });
    if (!job) return null;
    recordSeconds((all) => all.outboxLag, nowMs - job.availableAtMs, { 'messaging.destination.name': job.topic });
    if (activeTracer() === undefined) return await this.runClaimed(job);
    const parent = (await jobTracesOf(this.target, [job.id])).get(job.id) ?? null;
    const attributes = {
      'messaging.operation.type': 'process',
      'messaging.destination.name': job.topic,
      [A.jobId]: job.id,
      [A.jobAttempt]: job.attempts,
    };
    const spec = { kind: 'consumer' as const, attributes, startTimeMs: claimedFromMs, ...(parent ? { parent } : {}) };
    return await inSpan('payonce.outbox.run', spec, async (span) => {
      recordPastSpan('payonce.outbox.claim', claimedFromMs, Date.now(), { [A.jobId]: job.id });
      const result = await this.runClaimed(job);
      span.set(A.result, result.outcome);
      if (result.outcome === 'retry' || result.outcome === 'dead') span.fail(result.error);
      return result;
    });
  }

  /** Runs the handler of a claimed job and records how it ended. */
  private async runClaimed(job: OutboxJob): Promise<JobRunResult> {
    const { maxAttempts } = this.options;
    if (job.attempts > maxAttempts) {
      const error = job.lastError ?? leaseExpiredReason(maxAttempts);
      return this.finish(job, 'dead', error, 0);
    }
    const handler = this.handlers[job.topic];
    const context: JobContext<DB> = {
      attempt: job.attempts,
      once: (effectKey, effect) =>
        inSpan('payonce.outbox.effect', { attributes: { 'payonce.effect.key': effectKey } }, async (span) => {
          const result = await runEffectOnce(this.target, effectKey, effect, {
            jobId: job.id,
            nowMs: this.clock.now(),
          });
          span.set(A.result, result.kind);
          return result;
        }),
    };
    try {
      if (!handler) throw new Error(`no handler for topic ${job.topic}`);
      await handler(job, context);
    } catch (error) {
      const text = errorText(error, this.options.maxErrorChars);
      if (job.attempts >= maxAttempts || error instanceof PermanentJobFailure) return this.finish(job, 'dead', text, 0);
      const delay = backoffDelayMs(job.attempts, this.options.backoffBaseMs, this.options.backoffMaxMs, this.random);
      return this.finish(job, 'retry', text, delay);
    }
    return this.finish(job, 'done', null, 0);
  }

  /**
   * Runs jobs until none is claimable now, `concurrency` at a time (each lane stops when it finds none); returns
   * how many runs were made. For tests and batch use.
   */
  async drain(): Promise<number> {
    const lane = async (): Promise<number> => {
      let runs = 0;
      while ((await this.runOnce()) !== null) runs++;
      return runs;
    };
    const counts = await Promise.all(Array.from({ length: this.options.concurrency }, lane));
    return counts.reduce((sum, runs) => sum + runs, 0);
  }

  /**
   * Starts `concurrency` polling lanes: each runs `runOnce` again and again, sleeping `pollIntervalMs` whenever no
   * job is claimable or a database error (reported to `onError`) occurred. Idempotent.
   */
  start(): void {
    this.loop.start();
  }

  /** Stops every lane after its current job; resolves when all have stopped. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private async finish(
    job: OutboxJob,
    outcome: 'done' | 'retry' | 'dead',
    error: string | null,
    delayMs: number,
  ): Promise<JobRunResult> {
    const now = this.clock.now();
    const nextAttemptAtMs = now + delayMs;
    const updated = await transaction(this.target, async (trx) => {
      const result = await tablesIn<OutboxDatabase>(this.target, trx)
        .updateTable(OUTBOX_TABLE)
        .set(
          outcome === 'retry'
            ? {
                status: 'queued',
                available_at: nextAttemptAtMs,
                lease_owner: null,
                lease_expires_at: null,
                last_error: error,
              }
            : { status: outcome, finished_at: now, lease_owner: null, lease_expires_at: null, last_error: error },
        )
        .where('id', '=', job.id)
        .where('status', '=', 'running')
        .where('lease_owner', '=', this.options.workerId)
        .where('attempts', '=', job.attempts)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    });
    const base = { jobId: job.id, attempt: job.attempts };
    if (!updated) return Object.freeze({ ...base, outcome: 'lease-lost' });
    if (outcome === 'done') return Object.freeze({ ...base, outcome });
    if (outcome === 'dead') return Object.freeze({ ...base, outcome, error: error ?? '' });
    return Object.freeze({ ...base, outcome, error: error ?? '', nextAttemptAtMs });
  }
}

import type { Clock } from '../core/clock.js';
import { InvalidOption } from '../core/errors.js';
import { optionsObject, positiveInt, timerMs } from '../core/options.js';

/** Options of `OutboxWorker`. */
export interface OutboxWorkerOptions {
  /** Lease owner written on claimed jobs. @default a random UUID */
  workerId?: string;
  /** How long a claimed job is leased; after that another worker may take it (the first one died). @default 30_000 */
  leaseMs?: number;
  /** Runs of a job before it goes to the dead letter with its last error. @default 5 */
  maxAttempts?: number;
  /** First retry delay; doubles per failed run. @default 1_000 */
  backoffBaseMs?: number;
  /** Longest retry delay. @default 300_000 (5 min) */
  backoffMaxMs?: number;
  /** Sleep of `start()` when no job is claimable. @default 1_000 */
  pollIntervalMs?: number;
  /**
   * How many jobs this worker runs at once (`start()` and `drain()` run this many lanes, each claiming and running
   * one job at a time with its own lease; the effect ledger keeps each job's effects once). A job waiting on a slow
   * call (a warehouse, a provider) then no longer holds up the queue. Positive integer; with a pooled store keep it
   * within the pool size. @default 4 (issue 34 item 20)
   */
  concurrency?: number;
  /** Stored error text is cut to this many characters. @default 2_000 */
  maxErrorChars?: number;
  /** Time source (epoch ms UTC). @default systemClock */
  clock?: Clock;
  /** Jitter source, returns [0, 1). @default Math.random */
  random?: () => number;
  /** Called by the `start()` loop when claiming or finishing a job fails (database down); the loop sleeps and goes on. */
  onError?: (error: unknown) => void;
}

/** Jobs one worker runs at once unless `concurrency` says otherwise. */
export const DEFAULT_CONCURRENCY = 4;

/** `OutboxWorkerOptions` with every default applied and checked. */
export type ResolvedOutboxWorkerOptions = Readonly<Required<Omit<OutboxWorkerOptions, 'clock' | 'random' | 'onError'>>>;

/** Applies defaults and checks every option once. @throws {InvalidOption} for a non-positive or fractional number. */
export function resolveOutboxWorkerOptions(
  given: OutboxWorkerOptions | undefined,
  randomId: string,
): ResolvedOutboxWorkerOptions {
  const options = optionsObject('options', given);
  const workerId = options.workerId ?? randomId;
  if (typeof workerId !== 'string' || workerId.length === 0 || workerId.length > 100) {
    throw new InvalidOption('workerId', 'must be a non-empty string of at most 100 characters');
  }
  return Object.freeze({
    workerId,
    leaseMs: positiveInt('leaseMs', options.leaseMs ?? 30_000),
    maxAttempts: positiveInt('maxAttempts', options.maxAttempts ?? 5),
    backoffBaseMs: timerMs('backoffBaseMs', options.backoffBaseMs ?? 1_000),
    backoffMaxMs: timerMs('backoffMaxMs', options.backoffMaxMs ?? 300_000),
    pollIntervalMs: timerMs('pollIntervalMs', options.pollIntervalMs ?? 1_000),
    concurrency: positiveInt('concurrency', options.concurrency ?? DEFAULT_CONCURRENCY),
    maxErrorChars: positiveInt('maxErrorChars', options.maxErrorChars ?? 2_000),
  });
}

import type { Clock } from '../core/clock.js';
import { InvalidOption } from '../core/errors.js';
import { optionsObject, positiveInt, timerMs } from '../core/options.js';
import type { RelayMessage } from './relay-message.js';

/** Options of `OutboxRelay`. Durations in ms. */
export interface OutboxRelayOptions {
  /** Outbox topics this relay publishes (no `OutboxWorker` may handle them too). Non-empty. */
  topics: readonly string[];
  /** Lease owner written on claimed jobs. @default `relay-<random UUID>` */
  relayId?: string;
  /**
   * How long claimed jobs are leased; after that another relay may publish them again (the first one died).
   * Keep it above `publishTimeoutMs` of the publisher; a JetStream stream's `duplicate_window` must be at least
   * this long (checked by `prepare`). @default 30_000
   */
  leaseMs?: number;
  /** Most jobs claimed and published per round (one claim and one mark-sent transaction each). @default 1_000 */
  batchSize?: number;
  /** Claims of a job before it goes to the outbox dead letter (`dead`) with its last error. @default 20 */
  maxAttempts?: number;
  /** First retry delay after a failed publish; doubles per claim. @default 500 */
  backoffBaseMs?: number;
  /** Longest retry delay. @default 30_000 */
  backoffMaxMs?: number;
  /** Sleep of `start()` when nothing is claimable. @default 200 */
  pollIntervalMs?: number;
  /** Time source (epoch ms UTC). @default systemClock */
  clock?: Clock;
  /** Jitter source, [0, 1). @default Math.random */
  random?: () => number;
  /** Called by the `start()` loop when a round fails (database down); the loop sleeps and goes on. */
  onError?: (error: unknown) => void;
  /**
   * Called after the broker acknowledged these jobs (`duplicate`: the broker dropped the copy) and BEFORE they
   * are marked sent (observability; the relay storm's fault injection kills the process here). A throw is
   * treated like a crash of this round: the jobs stay leased until their lease expires.
   */
  onAcknowledged?: (
    acked: readonly { readonly message: RelayMessage; readonly duplicate: boolean }[],
  ) => void | Promise<void>;
}

/** `OutboxRelayOptions` with defaults applied and checked. */
export interface ResolvedRelayOptions {
  readonly topics: readonly string[];
  readonly relayId: string;
  readonly leaseMs: number;
  readonly batchSize: number;
  readonly maxAttempts: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  readonly pollIntervalMs: number;
}

/** Applies defaults and checks every option. @throws {InvalidOption} empty topics, bad id, non-positive numbers. */
export function resolveRelayOptions(given: OutboxRelayOptions, randomId: string): ResolvedRelayOptions {
  const options = optionsObject('options', given);
  const topics = options.topics;
  if (!Array.isArray(topics) || topics.length === 0 || topics.some((t) => typeof t !== 'string' || t === '')) {
    throw new InvalidOption('topics', 'must be a non-empty list of outbox topics');
  }
  const relayId = options.relayId ?? `relay-${randomId}`;
  if (typeof relayId !== 'string' || relayId.length === 0 || relayId.length > 100) {
    throw new InvalidOption('relayId', 'must be a non-empty string of at most 100 characters');
  }
  return Object.freeze({
    topics: Object.freeze([...new Set(topics)]),
    relayId,
    leaseMs: positiveInt('leaseMs', options.leaseMs ?? 30_000),
    batchSize: positiveInt('batchSize', options.batchSize ?? 1_000),
    maxAttempts: positiveInt('maxAttempts', options.maxAttempts ?? 20),
    backoffBaseMs: timerMs('backoffBaseMs', options.backoffBaseMs ?? 500),
    backoffMaxMs: timerMs('backoffMaxMs', options.backoffMaxMs ?? 30_000),
    pollIntervalMs: timerMs('pollIntervalMs', options.pollIntervalMs ?? 200),
  });
}

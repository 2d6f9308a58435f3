import { InvalidOption } from '../core/errors.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import { nonNegativeNumber, optionsObject, timerMs } from '../core/options.js';
import { PeriodicTask } from '../core/periodic-task.js';
import type { DeliveryJournal } from './journal/delivery-journal.js';

/** One receipt retention: finished receipts of `guard`'s store older than `olderThanMs`, of one provider or all. */
export interface ReceiptRetention {
  readonly guard: IdempotencyGuard;
  /** Age in ms past which a finished (`completed`/`failed`) receipt is deleted. */
  readonly olderThanMs: number;
  /**
   * Only this provider's receipts (`http` for `Idempotency-Key` receipts, `stripe`…). Keep webhook receipts
   * longer than the provider's redelivery window. @default every provider
   */
  readonly provider?: string;
}

/** Options of {@link startHousekeeping} and {@link runHousekeeping}; every duration in milliseconds. */
export interface HousekeepingOptions {
  /** Receipt retentions, run in this order (e.g. `Idempotency-Key` receipts 24 h, webhook receipts 7 days). */
  readonly receipts?: readonly ReceiptRetention[];
  /** The delivery journal's retention: rows received more than `olderThanMs` ago are deleted. */
  readonly journal?: { readonly journal: DeliveryJournal; readonly olderThanMs: number };
  /** Pause between the end of one run and the start of the next. @default 3_600_000 (1 h) */
  readonly everyMs?: number;
  /** Called with what each periodic run deleted. */
  readonly onRun?: (report: HousekeepingReport) => void;
  /** Called with what a periodic run threw (the timer goes on). */
  readonly onError?: (error: unknown) => void;
}

/** What one run deleted: per receipt retention (same order as `receipts`), and journal rows. */
export interface HousekeepingReport {
  readonly receipts: readonly number[];
  readonly journal: number;
}

/** A running periodic purge. */
export interface Housekeeping {
  /** One purge now, outside the timer. @throws what the stores throw (`StoreUnavailable`, …). */
  runOnce(): Promise<HousekeepingReport>;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/** @throws {InvalidOption} a negative or non-finite retention or interval, a retention without a guard/journal. */
function checkOptions(options: HousekeepingOptions): void {
  if (options === undefined) throw new InvalidOption('options', 'must be an object, got undefined');
  optionsObject('options', options);
  options.receipts?.forEach((r, i) => {
    if (typeof r?.guard?.purge !== 'function') throw new InvalidOption(`receipts[${i}].guard`, 'must be a guard');
    nonNegativeNumber(`receipts[${i}].olderThanMs`, r.olderThanMs);
  });
  if (options.journal !== undefined) {
    if (typeof options.journal.journal?.purge !== 'function') {
      throw new InvalidOption('journal.journal', 'must be a delivery journal');
    }
    nonNegativeNumber('journal.olderThanMs', options.journal.olderThanMs);
  }
  timerMs('everyMs', options.everyMs ?? 3_600_000);
}

/**
 * One housekeeping run: each receipt retention through `IdempotencyGuard.purge` (finished receipts only, in
 * batches; never a `processing` one), then the journal's `purge`. Returns what was deleted.
 * @throws {InvalidOption} bad options (before any deletion). @throws what the stores throw.
 * @see docs/design.md §3 "Purge", §5 "Journal"; docs/service.md "Housekeeping".
 * @example await runHousekeeping({ receipts: [{ guard, olderThanMs: 86_400_000, provider: 'http' }] });
 */
export async function runHousekeeping(options: HousekeepingOptions): Promise<HousekeepingReport> {
  checkOptions(options);
  const receipts: number[] = [];
  for (const r of options.receipts ?? []) {
    receipts.push(await r.guard.purge({ olderThan: r.olderThanMs, provider: r.provider }));
  }
  const journal = options.journal ? await options.journal.journal.purge({ olderThan: options.journal.olderThanMs }) : 0;
  return { receipts, journal };
}

/**
 * Starts a periodic purge with a retention per table (receipts per guard and provider, the delivery journal):
 * the first run `everyMs` after the start, each next one `everyMs` after the previous ended (never overlapping);
 * the timer does not keep the process alive. Replaces a hand-written `setInterval` around `guard.purge` and
 * `journal.purge`.
 * @throws {InvalidOption} bad options, at once.
 * @example
 * const housekeeping = startHousekeeping({
 *   receipts: [{ guard: httpGuard, olderThanMs: 86_400_000, provider: 'http' }, { guard, olderThanMs: 7 * 86_400_000, provider: 'stripe' }],
 *   journal: { journal, olderThanMs: 90 * 86_400_000 },
 * });
 * // on shutdown: await housekeeping.stop();
 */
export function startHousekeeping(options: HousekeepingOptions): Housekeeping {
  checkOptions(options);
  const runOnce = () => runHousekeeping(options);
  const periodic = new PeriodicTask(
    options.everyMs ?? 3_600_000,
    async () => options.onRun?.(await runOnce()),
    options.onError,
  );
  periodic.start();
  return Object.freeze({ runOnce, stop: () => periodic.stop() });
}

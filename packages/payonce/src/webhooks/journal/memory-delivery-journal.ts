import { type Clock, systemClock } from '../../core/clock.js';
import type { DeliveryJournal, PaymentLookup } from './delivery-journal.js';
import type { DeliveryRecord } from './delivery-record.js';
import { journalCutoff, lookupOf } from './journal-cutoff.js';

/**
 * The delivery journal in an array of this process; for tests, the demo and single-process services.
 * @see docs/design.md §5.
 * @example const journal = new MemoryDeliveryJournal(); await journal.forPayment('pi_123');
 */
export class MemoryDeliveryJournal implements DeliveryJournal {
  private rows: DeliveryRecord[] = [];
  private readonly clock: Clock;

  /** @param clock source of "now" for age-based purges. @default systemClock */
  constructor(options: { clock?: Clock } = {}) {
    this.clock = options.clock ?? systemClock;
  }

  async record(entry: DeliveryRecord): Promise<void> {
    this.rows.push(Object.freeze({ ...entry }));
  }

  async forPayment(lookup: PaymentLookup | string): Promise<DeliveryRecord[]> {
    const { reference, provider } = lookupOf(lookup);
    return this.rows
      .filter(
        (r) =>
          (provider === undefined || r.provider === provider) &&
          (r.objectId === reference || r.paymentId === reference || r.merchantReference === reference),
      )
      .sort((a, b) => a.receivedAtMs - b.receivedAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async purge(options: { olderThan: Date | number }): Promise<number> {
    const cutoff = journalCutoff(options.olderThan, this.clock);
    const before = this.rows.length;
    this.rows = this.rows.filter((r) => r.receivedAtMs >= cutoff);
    return before - this.rows.length;
  }

  /** Every row, in insertion order (for tests and debugging). */
  all(): readonly DeliveryRecord[] {
    return [...this.rows];
  }
}

import type { DeliveryRecord } from './delivery-record.js';

/** Which deliveries `forPayment` returns: those whose object id, payment id or merchant reference equals `reference`. */
export interface PaymentLookup {
  /** An object id, a provider payment id or a merchant reference. */
  readonly reference: string;
  /** Only this provider's deliveries. @default every provider */
  readonly provider?: string;
}

/**
 * The delivery journal of docs/design.md §5: one row per delivery, written after the response is decided. Rows are
 * redacted before they reach a journal; a journal stores what it is given.
 */
export interface DeliveryJournal {
  /** Appends one row. @throws whatever the backing store throws (the intake catches and reports it). */
  record(entry: DeliveryRecord): Promise<void>;
  /**
   * "Why is this order in this state?": every delivery about one payment, oldest first (`receivedAtMs`, then
   * `id`). Matches `objectId`, `paymentId` or `merchantReference` exactly.
   */
  forPayment(lookup: PaymentLookup | string): Promise<DeliveryRecord[]>;
  /**
   * Retention: deletes rows received before the cut-off (a `Date`, or an age in milliseconds before now) and
   * returns how many were deleted.
   * @throws {InvalidOption} a negative or non-finite age, an invalid `Date`.
   */
  purge(options: { olderThan: Date | number }): Promise<number>;
}

/**
 * What the user's `findOrder(merchantTransId)` answers for a payable order: the amount Click must charge, in tiyin
 * (1 sum = 100 tiyin; Click sends sums, e.g. `1000.00` sum = 100000 tiyin).
 * @see https://docs.click.uz/en/click-api-request/ ("amount: Payment Amount (in soums)").
 */
export interface ClickOrder {
  /** The amount to charge, a positive integer of tiyin. */
  readonly amountTiyin: number;
}

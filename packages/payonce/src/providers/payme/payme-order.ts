/**
 * What the user's `findOrder(account)` answers for a payable order: its id (at most 64 characters, stored with each
 * transaction; one live transaction per id) and the amount Payme must charge, in tiyin (1 sum = 100 tiyin).
 * @see fixtures payme/states-and-reasons.json "data_types" (Amount); payme/rpc/CheckPerformTransaction.json.
 */
export interface PaymeOrder {
  /** Your order's id, 1–64 characters. */
  readonly orderId: string;
  /** The amount Payme must charge, a positive integer of tiyin. */
  readonly amountTiyin: number;
}

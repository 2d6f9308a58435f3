/**
 * What the user's `findOrder(params)` answers for a payable order: its id (1–64 printable ASCII characters; one
 * live transaction per id), the amount Uzum Bank must charge in tiyin (1 sum = 100 tiyin), and optionally the
 * attributes shown to the customer (answered as `data: { name: { value } }`; absent: `params` echoed).
 * @see fixtures uzum/protocol.json "endpoints" (/check `data`, /create `amount` in tiyin).
 */
export interface UzumOrder {
  /** Your order's id, 1–64 printable ASCII characters. */
  readonly orderId: string;
  /** The amount Uzum Bank must charge, a positive integer of tiyin. */
  readonly amountTiyin: number;
  /** Attribute name → text shown to the customer. */
  readonly data?: Readonly<Record<string, string>>;
}

/**
 * Which order each provider transaction belongs to, learned from the calls that name both (a Payme
 * CreateTransaction's `id` and `account`, an Uzum `/create`'s `transId` and `params`): the later calls naming only
 * the transaction (Perform, `/confirm`) are then tied to the order in the timeline.
 */
export class CallOrders {
  readonly #byTransaction = new Map<string, string>();

  /**
   * The order key of a call: `key` when the call names the order (remembered for `transaction`), else the order
   * `transaction` was seen with, else `null`.
   */
  orderOf(transaction: string | null, key: string | null): string | null {
    if (key !== null) {
      if (transaction !== null && !this.#byTransaction.has(transaction)) this.#byTransaction.set(transaction, key);
      return key;
    }
    return transaction === null ? null : (this.#byTransaction.get(transaction) ?? null);
  }
}

/** `text` parsed as a JSON object, or `{}`. */
export function jsonObjectOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** What came back of a call with no usable answer: the failure (`timeout`, `ECONNREFUSED`) or the body's start. */
export function noAnswerText(exchange: { readonly failure?: string; readonly received: string }): string {
  return exchange.failure === undefined ? exchange.received.slice(0, 160) : `no answer (${exchange.failure})`;
}

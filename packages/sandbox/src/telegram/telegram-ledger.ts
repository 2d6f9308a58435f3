/** One movement of money or Stars the sandbox made: a payment's debit, or a refund of it. */
export interface TelegramMovement {
  readonly kind: 'payment' | 'refund';
  readonly chargeId: string;
  readonly userId: number;
  /** The invoice payload (the merchant's order id). */
  readonly payload: string;
  /** `XTR` for Stars, else an ISO 4217 code. */
  readonly currency: string;
  /** Smallest units of the currency (whole stars for XTR). */
  readonly amount: number;
}

/** A fault the sandbox injected, on which update or call. */
export interface TelegramLedgerNote {
  readonly fault: string;
  readonly detail: string;
}

/** A copy of the ledger at one moment. */
export interface TelegramLedgerSnapshot {
  readonly movements: readonly TelegramMovement[];
  readonly faults: readonly TelegramLedgerNote[];
  /** Net moved per currency: payments minus refunds, smallest units. */
  readonly netByCurrency: Readonly<Record<string, number>>;
}

/**
 * The Telegram sandbox's books: every `successful_payment` it sent (a debit of the buyer), every refund
 * `refundStarPayment` made, and the faults it injected. A charge is refunded at most once.
 */
export class TelegramLedger {
  readonly #movements: TelegramMovement[] = [];
  readonly #faults: TelegramLedgerNote[] = [];

  /** Records a payment (a `successful_payment` the sandbox is about to send). */
  paid(movement: Omit<TelegramMovement, 'kind'>): void {
    this.#movements.push(Object.freeze({ ...movement, kind: 'payment' }));
  }

  /** The payment of `chargeId`, or `undefined`. */
  paymentOf(chargeId: string): TelegramMovement | undefined {
    return this.#movements.find((m) => m.kind === 'payment' && m.chargeId === chargeId);
  }

  /** True when `chargeId` was refunded. */
  refunded(chargeId: string): boolean {
    return this.#movements.some((m) => m.kind === 'refund' && m.chargeId === chargeId);
  }

  /** Records the refund of a payment (once: the caller checks `refunded` first). */
  refund(payment: TelegramMovement): void {
    this.#movements.push(Object.freeze({ ...payment, kind: 'refund' }));
  }

  /** Records an injected fault. */
  note(fault: string, detail: string): void {
    this.#faults.push(Object.freeze({ fault, detail }));
  }

  /** A copy of the books. */
  snapshot(): TelegramLedgerSnapshot {
    const netByCurrency: Record<string, number> = {};
    for (const m of this.#movements) {
      netByCurrency[m.currency] = (netByCurrency[m.currency] ?? 0) + (m.kind === 'payment' ? m.amount : -m.amount);
    }
    return Object.freeze({
      movements: Object.freeze([...this.#movements]),
      faults: Object.freeze([...this.#faults]),
      netByCurrency: Object.freeze(netByCurrency),
    });
  }
}

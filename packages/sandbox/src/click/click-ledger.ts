/** A Click payment as the sandbox knows it: what it sent, and what the merchant answered. */
export interface ClickLedgerTransaction {
  readonly clickTransId: number;
  readonly merchantTransId: string;
  /** Tiyin (1 sum = 100 tiyin). */
  readonly amountTiyin: number;
  /** `new` until Prepare answered 0; then `prepared`, `completed` (paid) or `cancelled` (a failed payment's -9). */
  state: 'new' | 'prepared' | 'completed' | 'cancelled';
  merchantPrepareId: string | null;
  merchantConfirmId: string | null;
}

/** Money the sandbox moved: a debit when a payment was first answered completed. */
export interface ClickMovement {
  readonly clickTransId: number;
  readonly kind: 'debit';
  /** Tiyin. */
  readonly amountTiyin: number;
}

/** A fault the sandbox injected, or a breach it saw, on which call of which payment. */
export interface ClickLedgerNote {
  readonly clickTransId: number;
  /** `Prepare` or `Complete`. */
  readonly call: string;
  readonly what: string;
}

/** A copy of the ledger at one moment. */
export interface ClickLedgerSnapshot {
  readonly transactions: readonly Readonly<ClickLedgerTransaction>[];
  readonly movements: readonly ClickMovement[];
  readonly faults: readonly ClickLedgerNote[];
  /** Breaches: a repeat answered differently from the first, a failed payment not answered -9. */
  readonly mismatches: readonly ClickLedgerNote[];
  /** HTTP calls made, repeats and copies included. */
  readonly calls: number;
  /** Debits, tiyin. */
  readonly movedTiyin: number;
}

/**
 * The Click sandbox's own books: every payment it started, the money it moved (debited once, on the first
 * completed answer, however many repeats), the faults it injected and the breaches it saw.
 */
export class ClickLedger {
  private readonly byId = new Map<number, ClickLedgerTransaction>();
  private readonly movements: ClickMovement[] = [];
  private readonly faults: ClickLedgerNote[] = [];
  private readonly mismatches: ClickLedgerNote[] = [];
  private calls = 0;

  /** Records a payment Click is about to prepare. */
  open(clickTransId: number, merchantTransId: string, amountTiyin: number): void {
    this.byId.set(clickTransId, {
      clickTransId,
      merchantTransId,
      amountTiyin,
      state: 'new',
      merchantPrepareId: null,
      merchantConfirmId: null,
    });
  }

  /** Counts one HTTP call. */
  called(): void {
    this.calls++;
  }

  /** Records an injected fault. */
  fault(clickTransId: number, call: string, what: string): void {
    this.faults.push({ clickTransId, call, what });
  }

  /** Records a breach. */
  mismatch(clickTransId: number, call: string, what: string): void {
    this.mismatches.push({ clickTransId, call, what });
  }

  /** Moves a payment to `state` with the id answered; the first `completed` debits its amount. */
  report(clickTransId: number, state: ClickLedgerTransaction['state'], merchantId: unknown): void {
    const tx = this.byId.get(clickTransId);
    if (tx === undefined) return;
    const id = merchantId === undefined || merchantId === null ? null : String(merchantId);
    if (state === 'prepared') tx.merchantPrepareId = id;
    if (state === 'completed') {
      tx.merchantConfirmId = id ?? tx.merchantConfirmId;
      if (!this.movements.some((m) => m.clickTransId === clickTransId)) {
        this.movements.push({ clickTransId, kind: 'debit', amountTiyin: tx.amountTiyin });
      }
    }
    tx.state = state;
  }

  /** The payment `clickTransId`, or `undefined`. */
  transaction(clickTransId: number): Readonly<ClickLedgerTransaction> | undefined {
    const tx = this.byId.get(clickTransId);
    return tx === undefined ? undefined : { ...tx };
  }

  /** A copy of everything recorded. */
  snapshot(): ClickLedgerSnapshot {
    return {
      transactions: [...this.byId.values()].map((tx) => ({ ...tx })),
      movements: [...this.movements],
      faults: [...this.faults],
      mismatches: [...this.mismatches],
      calls: this.calls,
      movedTiyin: this.movements.reduce((sum, m) => sum + m.amountTiyin, 0),
    };
  }
}

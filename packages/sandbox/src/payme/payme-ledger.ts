/** A Payme transaction as the sandbox knows it: what it sent, and the state the merchant last reported. */
export interface PaymeLedgerTransaction {
  /** Payme's transaction id (24 hex characters). */
  readonly paymeId: string;
  readonly account: Readonly<Record<string, unknown>>;
  /** Tiyin (1 sum = 100 tiyin). */
  readonly amount: number;
  /** Payme's creation `time`, ms. */
  readonly time: number;
  /** 1, 2, -1, -2 as last reported; 0 while the merchant never answered a state. */
  state: number;
  createTime: number | null;
  performTime: number | null;
  cancelTime: number | null;
  reason: number | null;
}

/** Money the sandbox moved: a debit when a transaction first reached state 2, a refund when it reached -2. */
export interface PaymeMovement {
  readonly paymeId: string;
  readonly kind: 'debit' | 'refund';
  /** Tiyin. */
  readonly amount: number;
}

/** A fault the sandbox injected, on which call of which transaction. */
export interface PaymeFaultRecord {
  readonly paymeId: string;
  readonly method: string;
  readonly fault: string;
}

/** A protocol breach seen while paying: a repeat answered differently, or an answer the state does not allow. */
export interface PaymeMismatch {
  readonly paymeId: string;
  readonly method: string;
  readonly what: string;
}

/** A copy of the ledger at one moment. */
export interface PaymeLedgerSnapshot {
  readonly transactions: readonly Readonly<PaymeLedgerTransaction>[];
  readonly movements: readonly PaymeMovement[];
  readonly faults: readonly PaymeFaultRecord[];
  readonly mismatches: readonly PaymeMismatch[];
  /** HTTP calls made, repeats and copies included. */
  readonly calls: number;
  /** Debits minus refunds, tiyin. */
  readonly movedTiyin: number;
}

/**
 * The Payme sandbox's own books: every transaction it started, the money it moved (debited on the first state 2,
 * refunded on the first state -2, whatever the number of repeats), the faults it injected and the breaches it saw.
 */
export class PaymeLedger {
  private readonly byId = new Map<string, PaymeLedgerTransaction>();
  private readonly movements: PaymeMovement[] = [];
  private readonly faults: PaymeFaultRecord[] = [];
  private readonly mismatches: PaymeMismatch[] = [];
  private calls = 0;

  /** Records a transaction Payme is about to create. */
  open(paymeId: string, account: Readonly<Record<string, unknown>>, amount: number, time: number): void {
    this.byId.set(paymeId, {
      paymeId,
      account,
      amount,
      time,
      state: 0,
      createTime: null,
      performTime: null,
      cancelTime: null,
      reason: null,
    });
  }

  /** Counts one HTTP call. */
  called(): void {
    this.calls++;
  }

  /** Records an injected fault. */
  fault(paymeId: string, method: string, fault: string): void {
    this.faults.push({ paymeId, method, fault });
  }

  /** Records a breach. */
  mismatch(paymeId: string, method: string, what: string): void {
    this.mismatches.push({ paymeId, method, what });
  }

  /** Takes a reported state and its times; moves money on the first 2 and the first -2. */
  report(paymeId: string, result: Readonly<Record<string, unknown>>): void {
    const tx = this.byId.get(paymeId);
    if (tx === undefined) return;
    const state = result.state;
    if (typeof state === 'number') {
      if (state === 2 && !this.moved(paymeId, 'debit'))
        this.movements.push({ paymeId, kind: 'debit', amount: tx.amount });
      if (state === -2 && !this.moved(paymeId, 'refund')) {
        this.movements.push({ paymeId, kind: 'refund', amount: tx.amount });
      }
      tx.state = state;
    }
    if (typeof result.create_time === 'number') tx.createTime = result.create_time;
    if (typeof result.perform_time === 'number' && result.perform_time > 0) tx.performTime = result.perform_time;
    if (typeof result.cancel_time === 'number' && result.cancel_time > 0) tx.cancelTime = result.cancel_time;
    if (typeof result.reason === 'number') tx.reason = result.reason;
  }

  /** The transaction `paymeId`, or `undefined`. */
  transaction(paymeId: string): Readonly<PaymeLedgerTransaction> | undefined {
    const tx = this.byId.get(paymeId);
    return tx === undefined ? undefined : { ...tx };
  }

  /** A copy of everything recorded. */
  snapshot(): PaymeLedgerSnapshot {
    const movedTiyin = this.movements.reduce((sum, m) => sum + (m.kind === 'debit' ? m.amount : -m.amount), 0);
    return {
      transactions: [...this.byId.values()].map((tx) => ({ ...tx })),
      movements: [...this.movements],
      faults: [...this.faults],
      mismatches: [...this.mismatches],
      calls: this.calls,
      movedTiyin,
    };
  }

  private moved(paymeId: string, kind: PaymeMovement['kind']): boolean {
    return this.movements.some((m) => m.paymeId === paymeId && m.kind === kind);
  }
}

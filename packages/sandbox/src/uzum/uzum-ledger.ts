/** An Uzum transaction as the sandbox knows it: what it sent, and the status the merchant last reported. */
export interface UzumLedgerTransaction {
  readonly transId: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** Tiyin (1 sum = 100 tiyin). */
  readonly amountTiyin: number;
  /** `NEW` until /create answered; then CREATED, CONFIRMED or REVERSED as last reported. */
  status: 'NEW' | 'CREATED' | 'CONFIRMED' | 'REVERSED';
  transTime: number | null;
  confirmTime: number | null;
  reverseTime: number | null;
}

/** Money the sandbox moved: a debit on the first CONFIRMED, a refund on a REVERSED after it. */
export interface UzumMovement {
  readonly transId: string;
  readonly kind: 'debit' | 'refund';
  /** Tiyin. */
  readonly amountTiyin: number;
}

/** A fault the sandbox injected, or a breach it saw, on which webhook of which transaction. */
export interface UzumLedgerNote {
  readonly transId: string;
  /** `/create`, `/confirm`, … */
  readonly call: string;
  readonly what: string;
}

/** A copy of the ledger at one moment. */
export interface UzumLedgerSnapshot {
  readonly transactions: readonly Readonly<UzumLedgerTransaction>[];
  readonly movements: readonly UzumMovement[];
  readonly faults: readonly UzumLedgerNote[];
  /** Breaches: a repeat answered differently from the first, /status disagreeing with an answer. */
  readonly mismatches: readonly UzumLedgerNote[];
  /** HTTP calls made, repeats, copies and /status polls included. */
  readonly calls: number;
  /** /status calls made after an unclear answer. */
  readonly statusPolls: number;
  /** Debits minus refunds, tiyin. */
  readonly movedTiyin: number;
}

const timeOf = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);

/**
 * The Uzum sandbox's own books: every transaction it started, the money it moved (debited on the first CONFIRMED,
 * refunded on a REVERSED after it, however many repeats), the faults it injected and the breaches it saw.
 */
export class UzumLedger {
  private readonly byId = new Map<string, UzumLedgerTransaction>();
  private readonly movements: UzumMovement[] = [];
  private readonly faults: UzumLedgerNote[] = [];
  private readonly mismatches: UzumLedgerNote[] = [];
  private calls = 0;
  private polls = 0;

  /** Records a transaction Uzum Bank is about to create. */
  open(transId: string, params: Readonly<Record<string, unknown>>, amountTiyin: number): void {
    const empty = { transTime: null, confirmTime: null, reverseTime: null };
    this.byId.set(transId, { transId, params, amountTiyin, status: 'NEW', ...empty });
  }

  /** Counts one HTTP call (`poll`: a /status asked after an unclear answer). */
  called(poll = false): void {
    this.calls++;
    if (poll) this.polls++;
  }

  /** Records an injected fault. */
  fault(transId: string, call: string, what: string): void {
    this.faults.push({ transId, call, what });
  }

  /** Records a breach. */
  mismatch(transId: string, call: string, what: string): void {
    this.mismatches.push({ transId, call, what });
  }

  /** Takes a reported status and its times; moves money on the first CONFIRMED and on a REVERSED after it. */
  report(transId: string, answer: Readonly<Record<string, unknown>>): void {
    const tx = this.byId.get(transId);
    const status = answer.status;
    if (tx === undefined || (status !== 'CREATED' && status !== 'CONFIRMED' && status !== 'REVERSED')) return;
    const moved = (kind: UzumMovement['kind']) => this.movements.some((m) => m.transId === transId && m.kind === kind);
    if (status === 'CONFIRMED' && !moved('debit'))
      this.movements.push({ transId, kind: 'debit', amountTiyin: tx.amountTiyin });
    if (status === 'REVERSED' && moved('debit') && !moved('refund')) {
      this.movements.push({ transId, kind: 'refund', amountTiyin: tx.amountTiyin });
    }
    tx.status = status;
    tx.transTime = timeOf(answer.transTime) ?? tx.transTime;
    tx.confirmTime = timeOf(answer.confirmTime) ?? tx.confirmTime;
    tx.reverseTime = timeOf(answer.reverseTime) ?? tx.reverseTime;
  }

  /** The transaction `transId`, or `undefined`. */
  transaction(transId: string): Readonly<UzumLedgerTransaction> | undefined {
    const tx = this.byId.get(transId);
    return tx === undefined ? undefined : { ...tx };
  }

  /** A copy of everything recorded. */
  snapshot(): UzumLedgerSnapshot {
    const movedTiyin = this.movements.reduce(
      (sum, m) => sum + (m.kind === 'debit' ? m.amountTiyin : -m.amountTiyin),
      0,
    );
    return {
      transactions: [...this.byId.values()].map((tx) => ({ ...tx })),
      movements: [...this.movements],
      faults: [...this.faults],
      mismatches: [...this.mismatches],
      calls: this.calls,
      statusPolls: this.polls,
      movedTiyin,
    };
  }
}

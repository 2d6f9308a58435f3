/** The parts of a sandbox ledger snapshot (Click's, Uzum's) that a scenario's several ledgers merge into one. */
export interface LedgerParts<T, M, F, X = F> {
  readonly transactions: readonly T[];
  readonly movements: readonly M[];
  readonly faults: readonly F[];
  readonly mismatches: readonly X[];
  readonly calls: number;
}

/** Every ledger snapshot of a scenario (its own single calls, each payer's) as one. Pure. */
export function mergedLedger<T, M, F, X>(parts: readonly LedgerParts<T, M, F, X>[]): LedgerParts<T, M, F, X> {
  return {
    transactions: parts.flatMap((p) => p.transactions),
    movements: parts.flatMap((p) => p.movements),
    faults: parts.flatMap((p) => p.faults),
    mismatches: parts.flatMap((p) => p.mismatches),
    calls: parts.reduce((n, p) => n + p.calls, 0),
  };
}

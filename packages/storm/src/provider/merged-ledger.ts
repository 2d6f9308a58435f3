/** The parts of a sandbox ledger snapshot (Click's, Uzum's) that a scenario's several ledgers merge into one. */
export interface LedgerParts<T, M, N> {
  readonly transactions: readonly T[];
  readonly movements: readonly M[];
  readonly faults: readonly N[];
  readonly mismatches: readonly N[];
  readonly calls: number;
}

/** Every ledger snapshot of a scenario (its own single calls, each payer's) as one. Pure. */
export function mergedLedger<T, M, N>(parts: readonly LedgerParts<T, M, N>[]): LedgerParts<T, M, N> {
  return {
    transactions: parts.flatMap((p) => p.transactions),
    movements: parts.flatMap((p) => p.movements),
    faults: parts.flatMap((p) => p.faults),
    mismatches: parts.flatMap((p) => p.mismatches),
    calls: parts.reduce((n, p) => n + p.calls, 0),
  };
}

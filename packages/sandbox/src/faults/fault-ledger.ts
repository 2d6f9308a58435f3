/** Where in a request's life a fault struck. */
export type FaultPhase = 'before-commit' | 'after-commit' | 'webhook';

/** One injected fault, as `GET /_sandbox/ledger` lists it. */
export interface FaultRecord {
  /** Position in the ledger, from 1. */
  readonly seq: number;
  /** The fault's name (`drop-after-commit`, `webhook-duplicate`, `delay`…). */
  readonly fault: string;
  readonly phase: FaultPhase;
  /** `Request-Id` of the API request it struck or whose events it struck, `req_…` (null for events of a control call). */
  readonly requestId: string | null;
  readonly method: string | null;
  readonly path: string | null;
  /** The event a webhook fault struck, else `null`. */
  readonly eventId: string | null;
  /** What asked for it: `header` (`Payonce-Fault`), `rule:<n>`, `plan` (a control plan or `Sandbox-Plan`), `defaults`. */
  readonly source: string;
  /** Extra facts: the delay in ms, the number of copies, the status answered. */
  readonly detail: string | null;
  /** When, ms since the epoch (sandbox clock). */
  readonly atMs: number;
}

/** Append-only log of injected faults (bounded to the newest 10 000). */
export class FaultLedger {
  private readonly records: FaultRecord[] = [];
  private seq = 0;

  constructor(private readonly nowMs: () => number) {}

  record(entry: Omit<FaultRecord, 'seq' | 'atMs'>): FaultRecord {
    this.seq += 1;
    const record: FaultRecord = Object.freeze({ ...entry, seq: this.seq, atMs: this.nowMs() });
    this.records.push(record);
    if (this.records.length > 10_000) this.records.shift();
    return record;
  }

  /** Every record, oldest first (optionally of one request id). */
  list(requestId?: string): readonly FaultRecord[] {
    return requestId === undefined ? [...this.records] : this.records.filter((r) => r.requestId === requestId);
  }
}

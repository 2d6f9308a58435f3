import type { BenchBackend, NamespaceInfo } from './namespaces.js';

/** What one delivery came to: the handler ran, a stored response was replayed, or another claim holds the key. */
export type DeliveryResult = 'ran' | 'replayed' | 'in-progress';

/** The response every handler returns and every implementation stores for replay. */
export const HANDLER_RESPONSE = Object.freeze({
  status: 200,
  headers: Object.freeze({ 'content-type': 'application/json' }),
  body: '{"received":true}',
});

/** The payload every delivery carries; payonce rows fingerprint it (SHA-256), as the peers hash theirs. */
export const payloadOf = (id: string): string => `{"id":"${id}","type":"payment.succeeded","amount":4200}`;

/** Counts handler runs: the storm's correctness column. */
export interface HandlerCounter {
  runs: number;
}

/** One opened implementation: delivers event ids until closed. */
export interface Deliverer {
  /** Delivers event `id` once: claim, run the handler at most once, store its response. */
  deliver(id: string): Promise<DeliveryResult>;
  close(): Promise<void>;
  /**
   * What the subject says about itself after the timed run, added to the side's `notes`: e.g. the Redis store's
   * `pipelining` choice and the probe that made it.
   */
  notes?(): Readonly<Record<string, number | string>>;
}

/** Who wrote the idempotency logic of a row. */
export type SubjectKind = 'bare' | 'payonce' | 'peer';

/** One row of the in-process workloads (a) and (b). */
export interface Subject {
  /** Stable id, e.g. `postgres/payonce`. */
  readonly id: string;
  readonly backend: BenchBackend;
  readonly kind: SubjectKind;
  /** What the row runs, for the report. */
  readonly label: string;
  /** Opens a deliverer on the namespace; `counter.runs` is incremented once per handler run. */
  open(ns: NamespaceInfo, counter: HandlerCounter): Promise<Deliverer>;
}

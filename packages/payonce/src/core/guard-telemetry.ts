import { PAYONCE_ATTRIBUTES as A, type IdempotencyOutcome } from '../otel/attributes.js';
import { instruments, recordSeconds } from '../otel/meters.js';
import { inLeafSpan, inSpan, NO_SPAN, type SpanScope, type SpanSpec } from '../otel/span-scope.js';
import { activeTracer, insideTrace } from '../otel/tracing.js';
import { ClaimLost, PayloadMismatch, RequestInProgress } from './errors.js';
import type { Outcome } from './outcome.js';
import type { RequestKey } from './request-key.js';

/**
 * What one guarded call noted while it ran, for its span and metrics: whether its claim took over a stale one,
 * whether it waited for a claim held elsewhere. A call with no telemetry writes to a shared note nobody reads.
 */
export interface GuardNote {
  takeover: boolean;
  waited: boolean;
  /** Whether spans are recorded for this call (child spans are skipped otherwise). */
  readonly traced: boolean;
  /** Whether an SDK meter provider records payonce's metrics. */
  readonly measured: boolean;
  /** The call's `payonce.guard` span (its steps add events to it), `NO_SPAN` when untraced. */
  span: SpanScope;
  /** When the call started (`performance.now()` ms): the claim protocol's duration runs from here. */
  readonly startedMs: number;
  /** Whether the claim protocol has ended (its duration recorded); a throw before that is the claim's. */
  claimEnded: boolean;
}

/** The note of calls without telemetry: written, never read. */
const UNOBSERVED: GuardNote = {
  takeover: false,
  waited: false,
  traced: false,
  measured: false,
  span: NO_SPAN,
  startedMs: 0,
  claimEnded: false,
};

/** OpenTelemetry's `db.system.name` of a store's short name (`Store.name`); none for the memory store. */
const DB_SYSTEMS: Readonly<Record<string, string>> = Object.freeze({
  postgres: 'postgresql',
  mysql: 'mysql',
  sqlite: 'sqlite',
  redis: 'redis',
});

/** The outcome of a call that settled with `outcome`, or threw `error`. */
function outcomeOf(note: GuardNote, outcome: Outcome | undefined, error: unknown): IdempotencyOutcome {
  if (outcome !== undefined) {
    if (outcome.isReplay) return note.waited ? 'waited' : 'replay';
    return note.takeover ? 'takeover' : 'fresh';
  }
  if (error instanceof RequestInProgress) return 'conflict';
  if (error instanceof PayloadMismatch) return 'mismatch';
  if (error instanceof ClaimLost) return 'fenced';
  return note.takeover ? 'takeover' : 'fresh';
}

/**
 * Runs one guarded call (`body`) inside the span `payonce.guard` and counts its outcome
 * (`payonce.idempotency.outcomes`); with neither an SDK tracer nor meter provider it is `body(note)` alone. With
 * `requireParentSpan`, a call outside any trace starts no span (its outcome is still counted).
 */
export function observeGuarded(
  key: RequestKey,
  storeName: string,
  requireParentSpan: boolean,
  body: (note: GuardNote) => Promise<Outcome>,
): Promise<Outcome> {
  const traced = activeTracer() !== undefined && (!requireParentSpan || insideTrace());
  const measured = instruments() !== undefined;
  // Not an async function: without telemetry the call's own promise is returned as it is (no extra turn).
  if (!traced && !measured) return body(UNOBSERVED);
  const note: GuardNote = {
    takeover: false,
    waited: false,
    traced,
    measured,
    span: NO_SPAN,
    startedMs: performance.now(),
    claimEnded: false,
  };
  // The outcome is counted in `then` callbacks, not an async wrapper: a call that is only measured (outside a trace,
  // by default) gets one `then` on its promise and no span.
  const counted = () =>
    body(note).then(
      (outcome) => {
        finish(note, key, outcomeOf(note, outcome, undefined), outcome.attempts);
        return outcome;
      },
      (error: unknown) => {
        finish(note, key, outcomeOf(note, undefined, error), undefined);
        throw error;
      },
    );
  if (!traced) return counted();
  const db = DB_SYSTEMS[storeName];
  const spec: SpanSpec = { attributes: { [A.provider]: key.provider, ...(db ? { 'db.system.name': db } : {}) } };
  return inSpan('payonce.guard', spec, (span) => {
    note.span = span;
    return counted();
  });
}

/** Ends an observed call: its outcome on the span and in the tally, and the claim's duration if it threw. */
function finish(note: GuardNote, key: RequestKey, name: IdempotencyOutcome, attempts: number | undefined): void {
  note.span.set(A.outcome, name);
  note.span.set(A.attempts, attempts);
  if (!note.measured) return;
  // A call that threw before its claim ended (a conflict, a mismatch, a store error): the claim's duration is here.
  if (!note.claimEnded) recordClaim(note.startedMs);
  instruments()?.outcomes.add(name, key.provider);
}

/**
 * Runs `step` as child span `name` of a guarded call (only when that call is traced): for a step that starts no span
 * of its own (the wait, the takeover), so its span is not made active. Not an async function: an untraced call gets
 * `step`'s own promise (no extra promise or microtask turn on the guard's hot path).
 */
export function guardLeafStep<T>(note: GuardNote, name: string, step: (span: SpanScope) => Promise<T>): Promise<T> {
  return note.traced ? inLeafSpan(name, step) : step(NO_SPAN);
}

/**
 * Marks the end of a guarded call's claim protocol (`decision`, read from the store): on the call's span the event
 * `payonce.guard.claimed` and the attributes `payonce.claim.decision` and `payonce.attempts`, and the claim's
 * duration from the call's start (`payonce.idempotency.claim.duration`); nothing for a call without telemetry. An event, not a child span: the claim
 * and the completion happen on every call, and a span each cost the traced guard on Redis about a tenth of its rate
 * (profiled 2026-12-07); the rarer steps inside the claim (wait, takeover) keep spans of their own. A function the
 * guard calls after its own `await`, not a wrapper around the claim: each extra async layer costs a call that is only
 * measured (outside a trace) a share of a 20 µs Redis call (packages/bench/notes/otel.md).
 */
export function claimEnded(
  note: GuardNote,
  decision: { readonly kind: string; readonly receipt: { readonly attempts: number } },
): void {
  if (!note.traced && !note.measured) return;
  note.claimEnded = true;
  if (note.traced) {
    note.span.set('payonce.claim.decision', decision.kind === 'replay' ? 'replay' : 'claimed');
    // Known from the claim on: a handler that throws leaves its span with the attempt it was.
    note.span.set(A.attempts, decision.receipt.attempts);
    note.span.event('payonce.guard.claimed');
  }
  if (note.measured) recordClaim(note.startedMs);
}

/**
 * Runs a duplicate's in-flight wait `wait` in the child span `payonce.guard.wait`, notes it (the outcome becomes
 * `waited` on a replay) and records its duration (`payonce.idempotency.wait.duration`).
 */
export async function observeWait<E extends string>(
  note: GuardNote,
  key: RequestKey,
  wait: () => Promise<E>,
): Promise<E> {
  note.waited = true;
  const startedMs = performance.now();
  const end = await guardLeafStep(note, 'payonce.guard.wait', async (span) => {
    const ended = await wait();
    span.set('payonce.wait.end', ended);
    return ended;
  });
  recordWait(key, performance.now() - startedMs);
  return end;
}

/** Runs the compare-and-set `takeover` in the child span `payonce.guard.takeover` (`stale`: a dead worker's claim). */
export async function observeTakeover<T>(note: GuardNote, stale: boolean, takeover: () => Promise<T>): Promise<T> {
  return await guardLeafStep(note, 'payonce.guard.takeover', async (span) => {
    span.set('payonce.takeover.stale', stale);
    return await takeover();
  });
}

/**
 * Records the claim protocol's duration (`payonce.idempotency.claim.duration`, no attributes) from `startedMs`
 * (`performance.now()`).
 */
export function recordClaim(startedMs: number): void {
  recordSeconds((all) => all.claimDuration, performance.now() - startedMs);
}

/** Records a duplicate's wait (`payonce.idempotency.wait.duration`), `waitedMs` of real time. */
export function recordWait(key: RequestKey, waitedMs: number): void {
  recordSeconds((all) => all.waitDuration, waitedMs, { [A.provider]: key.provider });
}

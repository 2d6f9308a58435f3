import type { Transition } from './transition.js';

/**
 * Status of one payment attempt (docs/design.md §6): `creating → pending | requires_action → succeeded | failed |
 * cancelled`, and `unknown` after a create call whose result we did not learn (timeout, network error).
 */
export type AttemptStatus =
  | 'creating'
  | 'pending'
  | 'requires_action'
  | 'succeeded'
  | 'failed'
  | 'cancelled'
  | 'unknown';

/** Every attempt status, in forward order. */
export const ATTEMPT_STATUSES: readonly AttemptStatus[] = Object.freeze([
  'creating',
  'pending',
  'requires_action',
  'unknown',
  'succeeded',
  'failed',
  'cancelled',
]);

/**
 * Statuses that hold the order's single active-attempt slot (the partial unique index of migration
 * `0002-payments` uses the same list). `unknown` is active: a local timeout proves nothing, so no new attempt may
 * open until reconciliation learns the provider's answer. @see docs/design.md §6; seed 002 "Когда можно открыть следующую
 * попытку".
 */
export const ACTIVE_ATTEMPT_STATUSES: readonly AttemptStatus[] = Object.freeze([
  'creating',
  'pending',
  'requires_action',
  'unknown',
]);

const ATTEMPT_MOVES: Readonly<Record<AttemptStatus, readonly AttemptStatus[]>> = Object.freeze({
  creating: ['pending', 'requires_action', 'unknown', 'succeeded', 'failed', 'cancelled'],
  pending: ['requires_action', 'succeeded', 'failed', 'cancelled'],
  requires_action: ['succeeded', 'failed', 'cancelled'],
  unknown: ['pending', 'requires_action', 'succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
});

/** True for `succeeded`, `failed`, `cancelled`: confirmed final answers that free the order (failed/cancelled). */
export function isTerminalAttempt(status: AttemptStatus): boolean {
  return ATTEMPT_MOVES[status].length === 0;
}

/** True when `status` holds the order's active-attempt slot (see {@link ACTIVE_ATTEMPT_STATUSES}). */
export function isActiveAttempt(status: AttemptStatus): boolean {
  return ACTIVE_ATTEMPT_STATUSES.includes(status);
}

/**
 * The forward-only attempt state machine, pure. `from === to` is `noop`; a move the table allows is `move`;
 * anything else (backwards, out of a terminal status, into `creating`/`unknown` from a known status) is
 * `ignored` and must change nothing. `unknown` may only be entered from `creating`. `applyReport` makes one
 * journaled, alerted exception outside this table: a provider `succeeded` on a `failed`/`cancelled` attempt (money
 * was taken) moves it to `succeeded` (see `MONEY_ON_CLOSED_ATTEMPT`).
 * @see docs/design.md §6; STYLE pattern 9.
 * @example nextAttemptStatus('succeeded', 'pending') // { kind: 'ignored', from: 'succeeded', to: 'pending' }
 */
export function nextAttemptStatus(from: AttemptStatus, to: AttemptStatus): Transition<AttemptStatus> {
  if (from === to) return { kind: 'noop' };
  return ATTEMPT_MOVES[from].includes(to) ? { kind: 'move', to } : { kind: 'ignored', from, to };
}

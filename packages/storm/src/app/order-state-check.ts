import type { StormOrderState, StormOrderStatus } from './storm-app-adapter.js';

/** The statuses `readOrder` may report (the storm maps every app's own onto these). */
const STATUSES: ReadonlySet<string> = new Set<StormOrderStatus>([
  'draft',
  'awaiting_payment',
  'paid',
  'fulfilling',
  'completed',
  'refunded',
  'cancelled',
]);

/**
 * The largest count of paid transitions, fulfilments or refunds the storm takes as real: far above any broken app's
 * (a redelivery storm repeats an effect tens of times), far below what would exhaust memory when judged.
 */
export const MAX_EFFECT_COUNT = 10_000;

/**
 * The adapter's `readOrder` answered something the storm cannot judge. A typo (`o.paid_transitions` for
 * `o.paidTransitions`) would otherwise read as "no transition" and pass a broken app, and a count returned as a
 * string (as `pg` returns `count(*)`) would compare as text.
 */
export class InvalidOrderState extends Error {
  constructor(orderId: string, field: string, value: unknown, expected: string) {
    super(
      `the adapter's readOrder for order ${orderId} returned ${field} ${describe(value)}: expected ${expected} ` +
        '(docs/storm-your-app.md, section 3)',
    );
    this.name = 'InvalidOrderState';
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'bigint') return `${value}n (a bigint)`;
  return String(value);
}

function count(orderId: string, field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_EFFECT_COUNT) {
    throw new InvalidOrderState(orderId, field, value, `a whole number from 0 to ${MAX_EFFECT_COUNT}`);
  }
}

/**
 * Checks what the adapter's `readOrder` returned for `orderId` before the storm judges it: a known status, the
 * amount in minor units as a whole number ≥ 0, an ISO-4217 code, `paidTransitions` and `fulfilments` (and
 * `refunds` when given) as whole numbers from 0 to {@link MAX_EFFECT_COUNT}, and the optional lists as arrays.
 * @throws {InvalidOrderState} the first field that is wrong, with its value.
 */
export function checkOrderState(orderId: string, state: StormOrderState): StormOrderState {
  if (typeof state !== 'object' || state === null) {
    throw new InvalidOrderState(orderId, 'the state', state, 'an object');
  }
  if (!STATUSES.has(state.status)) {
    throw new InvalidOrderState(orderId, 'status', state.status, `one of ${[...STATUSES].join(', ')}`);
  }
  if (typeof state.amountMinor !== 'number' || !Number.isSafeInteger(state.amountMinor) || state.amountMinor < 0) {
    throw new InvalidOrderState(orderId, 'amountMinor', state.amountMinor, 'a whole number of minor units ≥ 0');
  }
  if (typeof state.currency !== 'string' || !/^[A-Za-z]{3}$/.test(state.currency)) {
    throw new InvalidOrderState(orderId, 'currency', state.currency, 'a three-letter ISO-4217 code');
  }
  count(orderId, 'paidTransitions', state.paidTransitions);
  count(orderId, 'fulfilments', state.fulfilments);
  if (state.refunds !== undefined) count(orderId, 'refunds', state.refunds);
  for (const list of ['attempts', 'jobs', 'journal', 'deliveries'] as const) {
    const value = state[list];
    if (value !== undefined && !Array.isArray(value)) throw new InvalidOrderState(orderId, list, value, 'an array');
  }
  return state;
}

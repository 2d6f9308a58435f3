import type { OrderView } from './order-view.js';
import type { StormDelivery, StormOrderLedger } from './sandbox-api.js';
import type { OrderJudgement, ScenarioCounts } from './scenario.js';
import type { StormMoney } from './service-api.js';

/** Everything the storm observed about one order once it settled (or its deadline passed). */
export interface OrderSnapshot {
  readonly orderId: string;
  /** The service's view, `null` when GET /orders/:id failed (`viewError` says why). */
  readonly view: OrderView | null;
  readonly viewError: string | null;
  readonly ledger: StormOrderLedger;
  /** The sandbox's delivery log for the order's payments. */
  readonly deliveries: readonly StormDelivery[];
  /** True when the deadline passed before the order settled. */
  readonly timedOut: boolean;
  /**
   * The money the storm created the order with, when it knows it: the order's view and its charges are then
   * judged against it (an app may report the amount it charged rather than the one it was asked for). Absent:
   * the charges are judged against the view's `order.amountMinor` and `order.currency`.
   */
  readonly money?: StormMoney | null;
}

/** Order statuses that mean "the service took money for it" (docs/design.md §6). */
const PAID_STATUSES: ReadonlySet<string> = new Set(['paid', 'fulfilling', 'completed', 'refunded']);

/** True for an order status that means the app took the money: `paid`, `fulfilling`, `completed`, `refunded`. */
export const isPaidStatus = (status: string): boolean => PAID_STATUSES.has(status);
/** Delivery kinds that carry a genuine event (as opposed to forged or tampered copies). */
const GENUINE_KINDS: ReadonlySet<string> = new Set(['attempt', 'parallel-copy', 'duplicate', 'resend']);

const moneyText = (m: StormMoney) => `${m.amountMinor} ${m.currency}`;
const sameMoney = (a: StormMoney, b: StormMoney) =>
  a.amountMinor === b.amountMinor && a.currency.toUpperCase() === b.currency.toUpperCase();

/**
 * What the order's charges took against what the order costs (amounts in minor units): every charge must take the
 * order's amount in the order's currency, and the view must show the money the storm created the order with.
 */
function moneyProblems(snapshot: OrderSnapshot, short: string): string[] {
  const { view, ledger, money } = snapshot;
  const problems: string[] = [];
  if (money != null && view !== null && !sameMoney(view.order, money)) {
    problems.push(`order ${short} shows ${moneyText(view.order)} but was created for ${moneyText(money)}`);
  }
  const owed = money ?? view?.order ?? null;
  if (owed === null) return problems;
  for (const charge of ledger.charges) {
    if (sameMoney(charge, owed)) continue;
    problems.push(
      `order ${short} was charged ${moneyText(charge)} (payment ${charge.paymentId}) but the order is ` +
        `${moneyText(owed)} (minor units)`,
    );
  }
  if (ledger.charges.length < ledger.chargeCount) {
    problems.push(
      `order ${short}: the sandbox ledger does not say what ${ledger.chargeCount - ledger.charges.length} of its ` +
        'charge(s) took, so their amounts could not be checked (a sandbox older than the storm?)',
    );
  }
  return problems;
}

/** Genuine deliveries minus distinct genuine events: every copy of an event beyond its first send. */
export function duplicatesOf(deliveries: readonly StormDelivery[]): number {
  const genuine = deliveries.filter((d) => GENUINE_KINDS.has(d.kind));
  return genuine.length - new Set(genuine.map((d) => d.sourceEventId)).size;
}

/**
 * The common rule of docs/design.md §9 for one order: at most one charge (sandbox ledger), every charge of the
 * order's amount and currency, at most one paid transition, at most one fulfilment, nothing lost (charged ⇒ paid
 * and fulfilled exactly once), nothing invented (paid or fulfilled ⇒ charged), no fulfilment job dead-lettered.
 * Pure; `problems` is empty when the order passes.
 */
export function judgeOrder(snapshot: OrderSnapshot): OrderJudgement {
  const { orderId, view, ledger, deliveries } = snapshot;
  const problems: string[] = [];
  // String(): an adapter may hand numeric ids over (serial keys); a report must still name the order.
  const short = String(orderId).slice(0, 8);
  if (ledger.chargeCount > 1) {
    problems.push(
      `order ${short} charged ${ledger.chargeCount} times by the provider (payments ${ledger.paymentIds.join(', ')})`,
    );
  }
  problems.push(...moneyProblems(snapshot, short));
  if (view === null) {
    problems.push(`order ${short}: the service's view could not be read (${snapshot.viewError ?? 'unknown error'})`);
  } else {
    const fulfilments = view.fulfilments.length;
    const paid = PAID_STATUSES.has(view.order.status) || view.paidTransitions > 0;
    if (view.paidTransitions > 1) problems.push(`order ${short} moved to paid ${view.paidTransitions} times`);
    if (fulfilments > 1) problems.push(`order ${short} fulfilled ${fulfilments} times`);
    if (ledger.chargeCount >= 1 && !paid) {
      problems.push(`order ${short} was charged but never marked paid (lost payment; status ${view.order.status})`);
    } else if (ledger.chargeCount >= 1 && view.paidTransitions === 0) {
      problems.push(`order ${short} is ${view.order.status} but its journal shows no paid transition`);
    }
    if (ledger.chargeCount >= 1 && fulfilments === 0) problems.push(`order ${short} was charged but never fulfilled`);
    if (ledger.chargeCount === 0 && (paid || fulfilments > 0)) {
      problems.push(`order ${short} is ${view.order.status} with ${fulfilments} fulfilment(s) but was never charged`);
    }
    const dead = view.jobs.filter((j) => j.status === 'dead');
    if (dead.length > 0) problems.push(`order ${short}: ${dead.length} outbox job(s) dead-lettered`);
  }
  if (snapshot.timedOut && problems.length === 0) {
    problems.push(`order ${short} did not settle before the deadline (jobs or attempts still in flight)`);
  }
  return Object.freeze({
    orderId,
    status: view?.order.status ?? null,
    charges: ledger.chargeCount,
    refunds: ledger.refundCount,
    paymentIds: Object.freeze([...ledger.paymentIds]),
    attempts: view?.attempts.length ?? 0,
    paidTransitions: view?.paidTransitions ?? 0,
    fulfilments: view?.fulfilments.length ?? 0,
    jobs: Object.freeze(view?.jobs.map((j) => j.status) ?? []),
    deliveries: deliveries.length,
    duplicates: duplicatesOf(deliveries),
    problems: Object.freeze(problems),
  });
}

/** True when nothing more is expected to happen to the order: no job queued or running, no attempt `creating`. */
export function isSettled(snapshot: OrderSnapshot): boolean {
  const { view, ledger } = snapshot;
  if (view === null) return false;
  if (view.jobs.some((j) => j.status === 'queued' || j.status === 'running')) return false;
  if (view.attempts.some((a) => a.status === 'creating')) return false;
  if (ledger.chargeCount === 0) return true;
  const paid = PAID_STATUSES.has(view.order.status);
  return paid && view.fulfilments.length > 0;
}

/** A short fingerprint of what the judge reads, to see that two snapshots in a row agree. */
export function snapshotKey(snapshot: OrderSnapshot): string {
  const { view, ledger, deliveries } = snapshot;
  return JSON.stringify([
    ledger.chargeCount,
    ledger.refundCount,
    ledger.paymentIds.length,
    deliveries.length,
    view?.order.status,
    view?.paidTransitions,
    view?.fulfilments.length,
    view?.jobs.map((j) => j.status),
    view?.attempts.map((a) => a.status),
  ]);
}

/** Table counts of a scenario: sums over its orders plus the webhook requests the storm crafted itself. */
export function countsOf(orders: readonly OrderJudgement[], craftedDeliveries: number): ScenarioCounts {
  const sum = (pick: (o: OrderJudgement) => number) => orders.reduce((n, o) => n + pick(o), 0);
  return Object.freeze({
    deliveriesSent: sum((o) => o.deliveries) + craftedDeliveries,
    duplicates: sum((o) => o.duplicates),
    charges: sum((o) => o.charges),
    paidTransitions: sum((o) => o.paidTransitions),
    fulfilments: sum((o) => o.fulfilments),
  });
}

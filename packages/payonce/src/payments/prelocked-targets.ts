import { sql } from 'kysely';
import { forgetOnRollback } from '../stores/sql/read-ahead.js';
import { isOwnTransaction } from '../stores/sql/transaction-connection.js';
import { attemptsWithParkedFlag } from './attempt-rows.js';
import type { LockedTarget } from './locked-target.js';
import { toOrder } from './order.js';
import { toAttempt } from './payment-attempt.js';
import { type PaymentsSql, paymentsStatement, runPaymentsStatement } from './payments-sql.js';
import { ATTEMPTS_TABLE, ORDERS_TABLE, PAYMENT_EVENTS_TABLE } from './payments-tables.js';

/** The attempt an event will be applied to, by payment id, and the event's journal key. */
export interface EventTargetRef {
  /** The provider the attempt was opened with (`applyProviderEvent`'s `event.provider`). */
  readonly provider: string;
  /** `null`: the event has none; it is not locked ahead, but its journal key still counts (`distinctRefs`). */
  readonly paymentId: string | null;
  /** The event's journal key: its receipt key's provider and id. */
  readonly eventProvider: string;
  readonly eventId: string;
}

/**
 * PostgreSQL: the orders of the attempts carrying any of `paymentIds` (of one provider), locked in order of their id
 * — so that two transactions locking several orders cannot deadlock on each other — and read in the same statement.
 * `id = any(array(…))` keeps every row a primary-key lookup and the attempt lookup an index lookup on (provider,
 * provider payment id), whatever the statistics.
 */
const LOCK_ORDERS_OF_PAYMENTS = paymentsStatement(['provider', 'paymentIds'], (db, p) => {
  const orderIds = db
    .selectFrom(ATTEMPTS_TABLE)
    .select('order_id')
    .where('provider', '=', p.provider)
    .where(sql<boolean>`provider_payment_id = any(${p.paymentIds}::varchar[])`);
  return db
    .selectFrom(ORDERS_TABLE)
    .selectAll()
    .where(sql<boolean>`id = any(array(${orderIds}))`)
    .orderBy('id')
    .forUpdate();
});

/**
 * PostgreSQL: the attempts carrying any of `paymentIds` (of one provider), locked — after their orders — with, as
 * `LOCK_ATTEMPT_BY_PAYMENT_ID` reads them for one attempt, whether a parked event names each, and which of the events
 * `eventIds` (of `eventProvider`) are journaled already, read in the same statement (the same array on every row).
 * Only attempts of `orderIds`, the orders the statement before locked.
 */
const LOCK_ATTEMPTS_OF_PAYMENTS = paymentsStatement(
  ['provider', 'paymentIds', 'orderIds', 'eventProvider', 'eventIds'],
  (db, p) =>
    attemptsWithParkedFlag(db)
      .select(() => {
        const journaled = db
          .selectFrom(PAYMENT_EVENTS_TABLE)
          .select(`${PAYMENT_EVENTS_TABLE}.event_id`)
          .where(`${PAYMENT_EVENTS_TABLE}.provider`, '=', p.eventProvider)
          .where(sql<boolean>`${sql.ref(`${PAYMENT_EVENTS_TABLE}.event_id`)} = any(${p.eventIds}::varchar[])`);
        return sql<string[]>`array(${journaled})`.as('journaled_ids');
      })
      .where(`${ATTEMPTS_TABLE}.provider`, '=', p.provider)
      .where(sql<boolean>`${sql.ref(`${ATTEMPTS_TABLE}.provider_payment_id`)} = any(${p.paymentIds}::varchar[])`)
      // Only attempts of the orders locked just before: one whose payment id was set meanwhile, on an order not
      // locked, is neither locked here (an attempt before its order, against every other path) nor read ahead.
      .where(sql<boolean>`${sql.ref(`${ATTEMPTS_TABLE}.order_id`)} = any(${p.orderIds}::varchar[])`)
      .forUpdate(),
);

/** The targets locked ahead for one transaction, by `refId`, each handed out once, and when they were locked. */
interface Prelocked {
  readonly targets: Map<string, LockedTarget>;
  /** `epoch` when they were locked: a later epoch drops them. */
  readonly epoch: number;
}

/**
 * The targets locked ahead, by transaction: its Kysely executor, which is the same object through the fenced view a
 * handler is lent (`TransactionFence`) and through the transaction itself. Only transactions payonce opened itself
 * are locked ahead (`isOwnTransaction`): nothing but their own executor (or a view made from it with a plugin, a new
 * executor) runs on their connection.
 */
const prelocked = new WeakMap<object, Prelocked>();

/**
 * Bumped when an order is locked through a Kysely object that is not a transaction payonce opened (a joined
 * transaction, a view made with a plugin): which transaction that is cannot be told, so every target locked ahead
 * anywhere is dropped.
 */
let epoch = 0;

const refId = (ref: EventTargetRef): string =>
  JSON.stringify([ref.provider, ref.paymentId, ref.eventProvider, ref.eventId]);

/**
 * The refs that can be locked ahead: with a payment id, each payment id and each journal key named once among all of
 * `refs` (an event without a payment id may park, journaling its key without locking anything).
 */
function distinctRefs(refs: readonly EventTargetRef[]): EventTargetRef[] {
  const count = (key: (ref: EventTargetRef) => string) => {
    const counts = new Map<string, number>();
    for (const ref of refs) counts.set(key(ref), (counts.get(key(ref)) ?? 0) + 1);
    return (ref: EventTargetRef) => counts.get(key(ref)) === 1;
  };
  const onePayment = count((ref) => JSON.stringify([ref.provider, ref.paymentId]));
  const oneEvent = count((ref) => JSON.stringify([ref.eventProvider, ref.eventId]));
  return refs.filter((ref) => ref.paymentId !== null && onePayment(ref) && oneEvent(ref));
}

/**
 * The largest group of `refs` of one (provider, event provider), the first of equals: one pair of statements, so that
 * every order is locked by one statement in order of its id (orders locked group by group could deadlock with
 * another transaction doing the same). The other groups' events send their own statements.
 */
function largestGroup(refs: readonly EventTargetRef[]): EventTargetRef[] {
  const groups = new Map<string, EventTargetRef[]>();
  for (const ref of refs) {
    const key = JSON.stringify([ref.provider, ref.eventProvider]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [ref]);
    else group.push(ref);
  }
  let largest: EventTargetRef[] = [];
  for (const group of groups.values()) if (group.length > largest.length) largest = group;
  return largest;
}

/**
 * PostgreSQL, in a transaction payonce opened (`isOwnTransaction`: the intake's group commit, `SqlStore.transaction`):
 * locks and reads, in `on`'s transaction, the orders and then the attempts that the events `refs` (a group-commit
 * batch's, before their handlers run) will be applied to — two statements instead of two an event — so that
 * `lockEventTarget` hands each event its target from here (`takePrelocked`) with what its own two statements would
 * have read: the order and the attempt as locked, whether a parked event names the attempt, and whether the event is
 * journaled. The attempts' statement runs after every order is locked, so it sees what any transaction that held one
 * of those locks committed, as the per-event statement does.
 *
 * Only targets no other ref shares are kept: a payment id or an event's journal key named twice among `refs` (with
 * or without a payment id), or an order reached by two of them, goes to the database when its event is applied; so
 * do the events of every (provider, event provider) but the largest group, whose orders are locked by one statement
 * in order of their id. Whatever else the transaction locks or parks by itself (`forgetPrelocked`) drops the rest.
 * Replaces what an earlier call made for the same transaction. Returns how many targets are kept; 0 elsewhere than on
 * PostgreSQL or in a transaction payonce did not open (nothing is sent).
 * @throws whatever the driver throws; the transaction is then unusable.
 */
export async function prelockTargets(on: PaymentsSql, refs: readonly EventTargetRef[]): Promise<number> {
  const executor = on.db.getExecutor();
  prelocked.delete(executor);
  if (on.statements.dialect.name !== 'postgres' || !isOwnTransaction(on.db)) return 0;
  const group = largestGroup(distinctRefs(refs));
  if (group.length === 0) return 0;
  const found = await lockGroup(on, group);
  // An order two refs reach (two of its attempts) is left to each event's own statements.
  const perOrder = new Map<string, number>();
  for (const [, { order }] of found) perOrder.set(order.id, (perOrder.get(order.id) ?? 0) + 1);
  const targets = new Map(found.filter(([, { order }]) => perOrder.get(order.id) === 1));
  if (targets.size > 0) {
    prelocked.set(executor, { targets, epoch });
    // A rollback to a savepoint payonce set after this (a group commit's delivery that failed) may release these
    // locks, when they were taken inside it: nothing read ahead stands after one.
    forgetOnRollback(on.db, () => prelocked.delete(executor));
  }
  return targets.size;
}

/** One provider's refs (distinct payment ids and journal keys), locked and read: orders first, then attempts. */
async function lockGroup(on: PaymentsSql, refs: readonly EventTargetRef[]): Promise<[string, LockedTarget][]> {
  const { provider, eventProvider } = refs[0]!;
  const paymentIds = refs.map((ref) => ref.paymentId as string); // `distinctRefs` kept those with one
  const orderRows = (await runPaymentsStatement(on, LOCK_ORDERS_OF_PAYMENTS, { provider, paymentIds })).rows;
  if (orderRows.length === 0) return [];
  const eventIds = refs.map((ref) => ref.eventId);
  const orderIds = orderRows.map((row) => row.id);
  const values = { provider, paymentIds, orderIds, eventProvider, eventIds };
  const attemptRows = (await runPaymentsStatement(on, LOCK_ATTEMPTS_OF_PAYMENTS, values)).rows;
  const orders = new Map(orderRows.map((row) => [row.id, toOrder(row)]));
  // The same array on every row: the refs' events journaled already.
  const journaled = new Set<string>(attemptRows[0]?.journaled_ids ?? []);
  const byPayment = new Map<string, LockedTarget>();
  for (const row of attemptRows) {
    const order = orders.get(row.order_id);
    // An attempt whose order was not locked above (it learnt its payment id in between) is left to its event.
    if (order === undefined || row.provider_payment_id === null) continue;
    byPayment.set(row.provider_payment_id, { order, attempt: toAttempt(row), parked: Boolean(row.has_parked) });
  }
  return refs.flatMap((ref): [string, LockedTarget][] => {
    const target = byPayment.get(ref.paymentId as string);
    return target === undefined ? [] : [[refId(ref), { ...target, journaled: journaled.has(ref.eventId) }]];
  });
}

/**
 * The target `prelockTargets` locked for `ref` in `on`'s transaction, once; `null` when there is none (another
 * transaction, not locked ahead, handed out already, or dropped by `forgetPrelocked`).
 */
export function takePrelocked(on: PaymentsSql, ref: EventTargetRef): LockedTarget | null {
  const ahead = prelocked.get(on.db.getExecutor());
  if (ahead === undefined || ahead.epoch !== epoch) return null;
  const id = refId(ref);
  const target = ahead.targets.get(id);
  if (target === undefined) return null;
  ahead.targets.delete(id);
  return target;
}

/**
 * Drops every target locked ahead in `on`'s transaction: called before the transaction locks an order by itself, or
 * journals an event without a lock (it parks), after which a row or journal key read ahead may have been changed by
 * this transaction by a path this module does not see. Through a Kysely object that is not a transaction payonce
 * opened (a joined transaction, a view made with a plugin, the pool), every target locked ahead anywhere is dropped.
 */
export function forgetPrelocked(on: PaymentsSql): void {
  if (isOwnTransaction(on.db)) prelocked.delete(on.db.getExecutor());
  else epoch++;
}

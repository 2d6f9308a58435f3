import { sql } from 'kysely';
import type { LockedTarget } from './locked-target.js';
import { toOrder } from './order.js';
import { toAttempt } from './payment-attempt.js';
import { type PaymentsSql, paymentsStatement, runPaymentsStatement } from './payments-sql.js';
import { ATTEMPTS_TABLE, ORDERS_TABLE, PAYMENT_EVENTS_TABLE } from './payments-tables.js';

/** The attempt an event will be applied to, by payment id, and the event's journal key. */
export interface EventTargetRef {
  /** The provider the attempt was opened with (`applyProviderEvent`'s `event.provider`). */
  readonly provider: string;
  readonly paymentId: string;
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
 */
const LOCK_ATTEMPTS_OF_PAYMENTS = paymentsStatement(['provider', 'paymentIds', 'eventProvider', 'eventIds'], (db, p) =>
  db
    .selectFrom(ATTEMPTS_TABLE)
    .selectAll(ATTEMPTS_TABLE)
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom(PAYMENT_EVENTS_TABLE)
            .select(sql<number>`1`.as('one'))
            .where(`${PAYMENT_EVENTS_TABLE}.decision`, '=', 'parked')
            .where(`${PAYMENT_EVENTS_TABLE}.provider`, '=', eb.ref(`${ATTEMPTS_TABLE}.provider`))
            .where((w) =>
              w.or([
                w(`${PAYMENT_EVENTS_TABLE}.merchant_reference`, '=', w.ref(`${ATTEMPTS_TABLE}.id`)),
                w(`${PAYMENT_EVENTS_TABLE}.provider_payment_id`, '=', w.ref(`${ATTEMPTS_TABLE}.provider_payment_id`)),
              ]),
            ),
        )
        .as('has_parked'),
    )
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
    .forUpdate(),
);

/**
 * The targets locked ahead for a transaction, by transaction and then by `refId`; each handed out once. A
 * transaction is known by its Kysely executor, which is the same object through the fenced view a handler is lent
 * (`TransactionFence`) and through the transaction itself.
 */
const prelocked = new WeakMap<object, Map<string, LockedTarget>>();

const transactionOf = (on: PaymentsSql): object => on.db.getExecutor();

const refId = (ref: EventTargetRef): string =>
  JSON.stringify([ref.provider, ref.paymentId, ref.eventProvider, ref.eventId]);

/** The refs that can be locked ahead: each payment id and each journal key named once in the batch. */
function distinctRefs(refs: readonly EventTargetRef[]): EventTargetRef[] {
  const count = (key: (ref: EventTargetRef) => string) => {
    const counts = new Map<string, number>();
    for (const ref of refs) counts.set(key(ref), (counts.get(key(ref)) ?? 0) + 1);
    return (ref: EventTargetRef) => counts.get(key(ref)) === 1;
  };
  const onePayment = count((ref) => JSON.stringify([ref.provider, ref.paymentId]));
  const oneEvent = count((ref) => JSON.stringify([ref.eventProvider, ref.eventId]));
  return refs.filter((ref) => onePayment(ref) && oneEvent(ref));
}

/** `refs` grouped by (provider, event provider): each group is one pair of statements. */
function groupsOf(refs: readonly EventTargetRef[]): EventTargetRef[][] {
  const groups = new Map<string, EventTargetRef[]>();
  for (const ref of refs) {
    const key = JSON.stringify([ref.provider, ref.eventProvider]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [ref]);
    else group.push(ref);
  }
  return [...groups.values()];
}

/**
 * PostgreSQL: locks and reads, in `on`'s transaction, the orders and then the attempts that the events `refs` (a
 * group-commit batch's, before their handlers run) will be applied to — two statements a provider instead of two a
 * event — so that `lockEventTarget` hands each event its target from here (`takePrelocked`) with what its own two
 * statements would have read: the order and the attempt as locked, whether a parked event names the attempt, and
 * whether the event is journaled. The attempts' statement runs after every order is locked, so it sees what any
 * transaction that held one of those locks committed, as the per-event statement does.
 *
 * Only targets no other ref of the batch shares are kept: a payment id, an event's journal key, an order or an
 * attempt named twice goes to the database when its event is applied. Whatever else the transaction locks by itself
 * (`forgetPrelocked`) drops the rest: a row this transaction may change by another path is never answered from here.
 * Replaces what an earlier call made for the same transaction. Returns how many targets are kept; 0 elsewhere than
 * on PostgreSQL (nothing is sent).
 * @throws whatever the driver throws; the transaction is then unusable.
 */
export async function prelockTargets(on: PaymentsSql, refs: readonly EventTargetRef[]): Promise<number> {
  prelocked.delete(transactionOf(on));
  if (on.statements.dialect.name !== 'postgres') return 0;
  const found: [string, LockedTarget][] = [];
  for (const group of groupsOf(distinctRefs(refs))) found.push(...(await lockGroup(on, group)));
  // An order two refs reach (two of its attempts, of one provider or of two) is left to each event's own statements.
  const perOrder = new Map<string, number>();
  for (const [, { order }] of found) perOrder.set(order.id, (perOrder.get(order.id) ?? 0) + 1);
  const targets = new Map(found.filter(([, { order }]) => perOrder.get(order.id) === 1));
  if (targets.size > 0) prelocked.set(transactionOf(on), targets);
  return targets.size;
}

/** One provider's refs (distinct payment ids and journal keys), locked and read: orders first, then attempts. */
async function lockGroup(on: PaymentsSql, refs: readonly EventTargetRef[]): Promise<[string, LockedTarget][]> {
  const { provider, eventProvider } = refs[0]!;
  const paymentIds = refs.map((ref) => ref.paymentId);
  const orderRows = (await runPaymentsStatement(on, LOCK_ORDERS_OF_PAYMENTS, { provider, paymentIds })).rows;
  if (orderRows.length === 0) return [];
  const eventIds = refs.map((ref) => ref.eventId);
  const values = { provider, paymentIds, eventProvider, eventIds };
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
    const target = byPayment.get(ref.paymentId);
    return target === undefined ? [] : [[refId(ref), { ...target, journaled: journaled.has(ref.eventId) }]];
  });
}

/**
 * The target `prelockTargets` locked for `ref` in `on`'s transaction, once; `null` when there is none (another
 * transaction, not locked ahead, handed out already, or dropped by `forgetPrelocked`).
 */
export function takePrelocked(on: PaymentsSql, ref: EventTargetRef): LockedTarget | null {
  const targets = prelocked.get(transactionOf(on));
  if (targets === undefined) return null;
  const id = refId(ref);
  const target = targets.get(id);
  if (target === undefined) return null;
  targets.delete(id);
  return target;
}

/**
 * Drops every target locked ahead in `on`'s transaction: called before the transaction locks an order by itself,
 * after which a row read ahead may be changed by this transaction by a path this module does not see.
 */
export function forgetPrelocked(on: PaymentsSql): void {
  prelocked.delete(transactionOf(on));
}

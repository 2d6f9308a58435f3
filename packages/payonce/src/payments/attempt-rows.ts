import { type Kysely, sql } from 'kysely';
import { isStoredId } from '../core/stored-id.js';
import { ACTIVE_ATTEMPT_STATUSES, type AttemptStatus } from './attempt-status.js';
import { type PaymentAttempt, toAttempt } from './payment-attempt.js';
import { type PaymentsSql, paymentsStatement, runPaymentsStatement } from './payments-sql.js';
import { ATTEMPTS_TABLE, PAYMENT_EVENTS_TABLE, type PaymentsDatabase } from './payments-tables.js';

const ACTIVE_ATTEMPT = paymentsStatement(['orderId'], (db, p) =>
  db
    .selectFrom(ATTEMPTS_TABLE)
    .selectAll()
    .where('order_id', '=', p.orderId)
    .where('status', 'in', [...ACTIVE_ATTEMPT_STATUSES]),
);

const LOCK_ATTEMPT = paymentsStatement(['id'], (db, p, dialect) =>
  db
    .selectFrom(ATTEMPTS_TABLE)
    .selectAll()
    .where('id', '=', p.id)
    .$if(dialect.name !== 'sqlite', (query) => query.forUpdate()),
);

const ATTEMPT_BY_PAYMENT_ID = paymentsStatement(['provider', 'paymentId'], (db, p) =>
  db
    .selectFrom(ATTEMPTS_TABLE)
    .selectAll()
    .where('provider', '=', p.provider)
    .where('provider_payment_id', '=', p.paymentId),
);

/**
 * Every column of the attempts, and `has_parked`: whether the inbox holds a parked event naming the attempt as
 * `parkedFor` finds them (same provider; its id as merchant reference, or its payment id). The start of the statements
 * that lock attempts for a provider event (one here, a batch's in prelocked-targets.ts).
 */
export function attemptsWithParkedFlag(db: Kysely<PaymentsDatabase>) {
  return db
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
    );
}

/**
 * PostgreSQL and MySQL: the attempt of a provider payment id with `FOR UPDATE` (after its order's lock), whether
 * the inbox holds a parked event naming it as `parkedFor` finds them (same provider; its id as merchant reference, or
 * its payment id), and whether the event (`eventProvider`, `eventId`) is journaled already, read in the same statement.
 */
const LOCK_ATTEMPT_BY_PAYMENT_ID = paymentsStatement(['provider', 'paymentId', 'eventProvider', 'eventId'], (db, p) =>
  attemptsWithParkedFlag(db)
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom(PAYMENT_EVENTS_TABLE)
            .select(sql<number>`1`.as('one'))
            .where(`${PAYMENT_EVENTS_TABLE}.provider`, '=', p.eventProvider)
            .where(`${PAYMENT_EVENTS_TABLE}.event_id`, '=', p.eventId),
        )
        .as('journaled'),
    )
    .where(`${ATTEMPTS_TABLE}.provider`, '=', p.provider)
    .where(`${ATTEMPTS_TABLE}.provider_payment_id`, '=', p.paymentId)
    .forUpdate(),
);

const ATTEMPT_BY_ID = paymentsStatement(['id'], (db, p) =>
  db.selectFrom(ATTEMPTS_TABLE).selectAll().where('id', '=', p.id),
);

/**
 * The order's active attempt (`creating`, `pending`, `requires_action`, `unknown`), or `null`. A plain read:
 * call it after `lockOrder`, which serialises every writer of this order's attempts (on MySQL the transaction's
 * snapshot is taken by this first consistent read, after the lock, so it sees the last committed attempt).
 */
export async function findActiveAttempt(on: PaymentsSql, orderId: string): Promise<PaymentAttempt | null> {
  const row = (await runPaymentsStatement(on, ACTIVE_ATTEMPT, { orderId })).rows[0];
  return row ? toAttempt(row) : null;
}

/** Reads one attempt by id with a row lock on PostgreSQL/MySQL (call after `lockOrder`); `null` if absent. */
export async function lockAttempt(on: PaymentsSql, attemptId: string): Promise<PaymentAttempt | null> {
  const row = (await runPaymentsStatement(on, LOCK_ATTEMPT, { id: attemptId })).rows[0];
  return row ? toAttempt(row) : null;
}

/**
 * PostgreSQL and MySQL only: the attempt carrying provider payment `paymentId`, with a row lock, whether a parked
 * event names it (`parked`, read as `parkedFor` would) and whether the event `event` is journaled
 * (`journaled`); call it after `lockOrderOfPayment` found its order. `null` if absent.
 */
export async function lockAttemptOfPayment(
  on: PaymentsSql,
  provider: string,
  paymentId: string,
  event: JournalKey,
): Promise<{ readonly attempt: PaymentAttempt; readonly parked: boolean; readonly journaled: boolean } | null> {
  const values = { provider, paymentId, eventProvider: event.provider, eventId: event.eventId };
  const row = (await runPaymentsStatement(on, LOCK_ATTEMPT_BY_PAYMENT_ID, values)).rows[0];
  if (!row) return null;
  // PostgreSQL answers a boolean, MySQL 0 or 1.
  return {
    attempt: toAttempt(row),
    parked: Boolean(Number(row.has_parked)),
    journaled: Boolean(Number(row.journaled)),
  };
}

/** The key of a payment journal row: the event's provider and id. */
export interface JournalKey {
  readonly provider: string;
  readonly eventId: string;
}

/** Reads one attempt by id without a lock; `null` if absent. */
export async function findAttempt(on: PaymentsSql, attemptId: string): Promise<PaymentAttempt | null> {
  const row = (await runPaymentsStatement(on, ATTEMPT_BY_ID, { id: attemptId })).rows[0];
  return row ? toAttempt(row) : null;
}

/**
 * Finds the attempt an event is about, without locking: by (provider, provider payment id) first, else by the
 * merchant reference (the attempt id). `null` when neither matches yet (the event goes to the inbox).
 */
export async function locateAttempt(
  on: PaymentsSql,
  provider: string,
  paymentId: string | null,
  merchantReference: string | null,
): Promise<PaymentAttempt | null> {
  if (paymentId !== null) {
    const row = (await runPaymentsStatement(on, ATTEMPT_BY_PAYMENT_ID, { provider, paymentId })).rows[0];
    if (row) return toAttempt(row);
  }
  return isStoredId(merchantReference) ? findAttempt(on, merchantReference) : null;
}

/** What `updateAttempt` may change. */
export interface AttemptChange {
  readonly status?: AttemptStatus;
  readonly providerPaymentId?: string;
  readonly actionUrl?: string | null;
  readonly lastError?: string | null;
}

/** The optional columns of `updateAttempt`, in the order they are set; a change's shape is which of them it has. */
const CHANGE_COLUMNS = [
  ['status', 'status'],
  ['providerPaymentId', 'provider_payment_id'],
  ['actionUrl', 'action_url'],
  ['lastError', 'last_error'],
] as const;

type ChangeKey = (typeof CHANGE_COLUMNS)[number][0];

/** The attempt update of one change shape (bit `i` set = column `i` of `CHANGE_COLUMNS` written). */
export function updateAttemptStatement(shape: number) {
  const written = CHANGE_COLUMNS.filter((_, i) => (shape & (1 << i)) !== 0).map(([key]) => key);
  return paymentsStatement(['id', 'nowMs', ...written], (db, p) => {
    const set: Record<string, never> = { updated_at: p.nowMs };
    for (const [key, column] of CHANGE_COLUMNS) if (key in p) set[column] = p[key as ChangeKey & keyof typeof p];
    return db.updateTable(ATTEMPTS_TABLE).set(set).where('id', '=', p.id);
  });
}

/** One compiled update per change shape (16), made on first use. */
const UPDATE_ATTEMPT = new Map<number, ReturnType<typeof updateAttemptStatement>>();

/** `attempt` as {@link updateAttempt} with `change` leaves its row (nothing is written). */
export function attemptAsWritten(attempt: PaymentAttempt, change: AttemptChange, nowMs: number): PaymentAttempt {
  return Object.freeze({ ...attempt, ...change, updatedAtMs: nowMs });
}

/** Writes `change` to the attempt; the caller holds the locks and has checked the transition. */
export async function updateAttempt(
  on: PaymentsSql,
  attemptId: string,
  change: AttemptChange,
  nowMs: number,
): Promise<void> {
  let shape = 0;
  // only the slots of this shape are read from `values`
  const values = { id: attemptId, nowMs } as Record<'id' | 'nowMs' | ChangeKey, unknown>;
  CHANGE_COLUMNS.forEach(([key], i) => {
    if (change[key] === undefined) return;
    shape |= 1 << i;
    values[key] = change[key];
  });
  let statement = UPDATE_ATTEMPT.get(shape);
  if (statement === undefined) {
    statement = updateAttemptStatement(shape);
    UPDATE_ATTEMPT.set(shape, statement);
  }
  await runPaymentsStatement(on, statement, values);
}

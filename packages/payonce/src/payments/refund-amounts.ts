import { intOf } from '../outbox/sql-transaction.js';
import type { PaymentReport } from './payment-report.js';
import { type PaymentsSql, paymentsStatement, runPaymentsStatement } from './payments-sql.js';
import { PAYMENT_EVENTS_TABLE, PAYMENT_REFUNDS_TABLE } from './payments-tables.js';

const INSERT_REFUNDED = paymentsStatement(['provider', 'eventId', 'refundedMinor'], (db, p) =>
  db
    .insertInto(PAYMENT_REFUNDS_TABLE)
    .values({ provider: p.provider, event_id: p.eventId, refunded_minor: p.refundedMinor }),
);

const REFUNDED_OF_EVENT = paymentsStatement(['provider', 'eventId'], (db, p) =>
  db
    .selectFrom(PAYMENT_REFUNDS_TABLE)
    .select('refunded_minor')
    .where('provider', '=', p.provider)
    .where('event_id', '=', p.eventId),
);

const REFUNDED_OF_ATTEMPT = paymentsStatement(['attemptId'], (db, p) =>
  db
    .selectFrom(PAYMENT_REFUNDS_TABLE)
    .innerJoin(PAYMENT_EVENTS_TABLE, (join) =>
      join
        .onRef(`${PAYMENT_EVENTS_TABLE}.provider`, '=', `${PAYMENT_REFUNDS_TABLE}.provider`)
        .onRef(`${PAYMENT_EVENTS_TABLE}.event_id`, '=', `${PAYMENT_REFUNDS_TABLE}.event_id`),
    )
    .select(`${PAYMENT_REFUNDS_TABLE}.refunded_minor`)
    .where(`${PAYMENT_EVENTS_TABLE}.attempt_id`, '=', p.attemptId)
    .where(`${PAYMENT_EVENTS_TABLE}.decision`, '=', 'applied'),
);

/**
 * Records the cumulative refunded amount a `refunded` report carries, keyed like its journal row; a report
 * without one (`refundedMinor` null or absent: a full refund) writes nothing. Call it with the journal insert.
 */
export async function recordRefundedAmount(on: PaymentsSql, report: PaymentReport): Promise<void> {
  const refundedMinor = report.refundedMinor ?? null;
  if (report.status !== 'refunded' || refundedMinor === null) return;
  await runPaymentsStatement(on, INSERT_REFUNDED, {
    provider: report.provider,
    eventId: report.eventId,
    refundedMinor,
  });
}

/** The cumulative refunded amount (minor units) the journaled event `(provider, eventId)` reported, or `null`. */
export async function reportedRefundOf(on: PaymentsSql, provider: string, eventId: string): Promise<number | null> {
  const row = (await runPaymentsStatement(on, REFUNDED_OF_EVENT, { provider, eventId })).rows[0];
  return row ? intOf(row.refunded_minor, 'payonce_payment_refunds.refunded_minor') : null;
}

/**
 * The refunded amount recorded for an attempt, integer minor units: the largest cumulative amount of its applied
 * `refunded` events (providers report it cumulative, so an older event arriving late never lowers it); 0 if none.
 */
export async function refundedOfAttempt(on: PaymentsSql, attemptId: string): Promise<number> {
  const rows = (await runPaymentsStatement(on, REFUNDED_OF_ATTEMPT, { attemptId })).rows;
  return rows.reduce(
    (max, row) => Math.max(max, intOf(row.refunded_minor, 'payonce_payment_refunds.refunded_minor')),
    0,
  );
}

import { sql } from 'kysely';
import { type AdminReads, num, staleAfterFor, text } from './admin-reads.js';

/** Counts of one group (e.g. receipts of one provider by state). */
export type Counts = Readonly<Record<string, number>>;

/** One minute of the deliveries chart: its start (epoch ms UTC) and the deliveries by decision in it. */
export interface DeliveryMinute {
  readonly minuteMs: number;
  readonly new: number;
  readonly duplicate: number;
  readonly inProgress: number;
  readonly rejected: number;
}

/**
 * The console's overview, read at one instant (`atMs`, epoch ms UTC) from the SQL database:
 * receipts by provider and state, stuck receipts (`processing` older than their kind's stale limit; with the intake's
 * receipts in Redis, its abandoned claims are counted there and added, `AdminReads.intakeReceipts`), failed
 * receipts, outbox jobs by state (`dead` = dead-lettered), parked payment events, attempts unresolved (`creating`
 * or `unknown`) and `unknown` alone, attempts waiting on the customer (`pending`, `requires_action`), orders by
 * status, and deliveries per minute by decision for the last hour (60 buckets, oldest first).
 */
export interface Overview {
  readonly atMs: number;
  readonly receipts: {
    readonly byProvider: Readonly<Record<string, Counts>>;
    readonly total: number;
    readonly stuck: number;
    readonly failed: number;
  };
  readonly jobs: Counts & { readonly total: number };
  readonly parkedEvents: number;
  readonly attempts: {
    readonly unresolved: number;
    readonly unknown: number;
    readonly waiting: number;
    readonly total: number;
  };
  readonly orders: Counts & { readonly total: number };
  readonly deliveries: {
    readonly lastHour: Counts & { readonly total: number };
    readonly perMinute: readonly DeliveryMinute[];
  };
}

const MINUTE_MS = 60_000;

function grouped(
  rows: readonly { key: string; n: number | string | bigint }[],
): Record<string, number> & { total: number } {
  const out: Record<string, number> & { total: number } = { total: 0 };
  for (const row of rows) {
    out[row.key] = (out[row.key] ?? 0) + num(row.n);
    out.total += num(row.n);
  }
  return out;
}

async function receiptCounts(reads: AdminReads, now: number) {
  const rows = await reads.db
    .selectFrom('payonce_receipts')
    .select(['provider', 'status', (eb) => eb.fn.countAll().as('n')])
    .groupBy(['provider', 'status'])
    .execute();
  const byProvider: Record<string, Record<string, number>> = {};
  let total = 0;
  let failed = 0;
  for (const row of rows) {
    const provider = text(row.provider);
    const n = num(row.n);
    byProvider[provider] = { ...byProvider[provider], [row.status]: n };
    total += n;
    if (row.status === 'failed') failed += n;
  }
  let stuck = 0;
  for (const provider of Object.keys(byProvider)) {
    if (!byProvider[provider]?.processing) continue;
    const row = await reads.db
      .selectFrom('payonce_receipts')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'processing')
      .where('provider', '=', provider)
      .where('claimed_at', '<=', now - staleAfterFor(reads.stale, provider))
      .executeTakeFirst();
    stuck += num(row?.n);
  }
  // Intake receipts kept in Redis: stuck = last heartbeat at or before now - the webhook stale limit.
  if (reads.intakeReceipts) stuck += await reads.intakeReceipts.countAbandoned(now - reads.stale.webhook + 1);
  return { byProvider, total, stuck, failed };
}

async function perMinute(reads: AdminReads, now: number): Promise<DeliveryMinute[]> {
  const end = Math.floor(now / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const start = end - 60 * MINUTE_MS;
  const bucket =
    reads.dialect === 'mysql'
      ? sql<number>`(received_at div ${sql.lit(MINUTE_MS)})`
      : sql<number>`(received_at / ${sql.lit(MINUTE_MS)})`;
  const rows = await reads.db
    .selectFrom('payonce_webhook_deliveries')
    .select([bucket.as('minute'), 'decision', (eb) => eb.fn.countAll().as('n')])
    .where('received_at', '>=', start)
    .where('received_at', '<', end)
    .groupBy([bucket, 'decision'])
    .execute();
  const minutes = Array.from({ length: 60 }, (_, i) => ({
    minuteMs: start + i * MINUTE_MS,
    new: 0,
    duplicate: 0,
    inProgress: 0,
    rejected: 0,
  }));
  for (const row of rows) {
    // An integer literal divisor keeps the division integral (a bound JS number is a REAL in SQLite).
    const index = Math.floor(num(row.minute)) - start / MINUTE_MS;
    const minute = minutes[index];
    if (!minute) continue;
    const n = num(row.n);
    if (row.decision === 'new') minute.new += n;
    else if (row.decision === 'duplicate') minute.duplicate += n;
    else if (row.decision === 'in-progress') minute.inProgress += n;
    else minute.rejected += n;
  }
  return minutes;
}

/** Reads the {@link Overview}. @throws the driver's error when the database fails. */
export async function readOverview(reads: AdminReads): Promise<Overview> {
  const now = reads.clock.now();
  const { db } = reads;
  const jobs = await db
    .selectFrom('payonce_outbox')
    .select(['status as key', (eb) => eb.fn.countAll().as('n')])
    .groupBy('status')
    .execute();
  const attempts = grouped(
    await db
      .selectFrom('payonce_payment_attempts')
      .select(['status as key', (eb) => eb.fn.countAll().as('n')])
      .groupBy('status')
      .execute(),
  );
  const orders = await db
    .selectFrom('payonce_orders')
    .select(['status as key', (eb) => eb.fn.countAll().as('n')])
    .groupBy('status')
    .execute();
  const parked = await db
    .selectFrom('payonce_payment_events')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('decision', '=', 'parked')
    .executeTakeFirst();
  const lastHour = await db
    .selectFrom('payonce_webhook_deliveries')
    .select(['decision as key', (eb) => eb.fn.countAll().as('n')])
    .where('received_at', '>=', now - 60 * MINUTE_MS)
    .groupBy('decision')
    .execute();
  return {
    atMs: now,
    receipts: await receiptCounts(reads, now),
    jobs: grouped(jobs),
    parkedEvents: num(parked?.n),
    attempts: {
      unresolved: (attempts.creating ?? 0) + (attempts.unknown ?? 0),
      unknown: attempts.unknown ?? 0,
      waiting: (attempts.pending ?? 0) + (attempts.requires_action ?? 0),
      total: attempts.total,
    },
    orders: grouped(orders),
    deliveries: { lastHour: grouped(lastHour), perMinute: await perMinute(reads, now) },
  };
}

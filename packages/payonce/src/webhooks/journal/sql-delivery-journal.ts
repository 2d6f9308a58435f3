import type { Kysely, QueryResult, Selectable } from 'kysely';
import { type Clock, systemClock } from '../../core/clock.js';
import { writeBeforeCommit } from '../../stores/sql/before-commit.js';
import {
  executeStatement,
  StatementCache,
  type StatementDefinition,
  statementsOn,
} from '../../stores/sql/compiled-statement.js';
import type { ReceiptsDatabase } from '../../stores/sql/receipts-table.js';
import type { SqlDialect } from '../../stores/sql/sql-dialect.js';
import { tablesOf } from '../../stores/sql/table-namespace.js';
import type { DeliveriesDatabase, DeliveriesTable } from './deliveries-table.js';
import type { DeliveryJournal, PaymentLookup } from './delivery-journal.js';
import type { DeliveryDecision, DeliveryOutcome, DeliveryRecord } from './delivery-record.js';
import { journalCutoff, lookupOf } from './journal-cutoff.js';

/**
 * The part of `SqliteStore`, `PostgresStore` or `MysqlStore` the journal uses: their Kysely instance and dialect;
 * when given, their compiled statements (`statements`), which the journal shares, and `executeFixed`, which writes a
 * row on the store's own driver.
 */
export interface KyselyHolder<DB> {
  readonly db: Kysely<DB>;
  readonly dialect: SqlDialect;
  readonly statements?: StatementCache;
  /** The schema (PostgreSQL) or database (MySQL) of payonce's tables, as a store's `schema` option; absent: the connection's. */
  readonly schema?: string | null;
  /** What payonce's table names start with, as a store's `tablePrefix` option; absent: `payonce_`. */
  readonly tablePrefix?: string | null;
  executeFixed?<N extends string, R, D>(
    definition: StatementDefinition<N, R, D>,
    values: Readonly<Record<N, unknown>>,
  ): Promise<QueryResult<R>>;
}

const RECORD_COLUMNS = [
  'id',
  'receivedAtMs',
  'provider',
  'eventKey',
  'eventType',
  'signature',
  'decision',
  'outcome',
  'responseStatus',
  'error',
  'durationMs',
  'objectId',
  'paymentId',
  'merchantReference',
  'amountMinor',
  'currency',
  'payload',
] as const;

/** The journal row of one delivery (`record`), compiled once per store. */
export const RECORD = statementsOn<DeliveriesDatabase>()(RECORD_COLUMNS, (db, p) =>
  db.insertInto('payonce_webhook_deliveries').values({
    id: p.id,
    received_at: p.receivedAtMs,
    provider: p.provider,
    event_key: p.eventKey,
    event_type: p.eventType,
    signature: p.signature,
    decision: p.decision,
    outcome: p.outcome,
    response_status: p.responseStatus,
    error: p.error,
    duration_ms: p.durationMs,
    object_id: p.objectId,
    payment_id: p.paymentId,
    merchant_reference: p.merchantReference,
    amount_minor: p.amountMinor,
    currency: p.currency,
    payload: p.payload,
  }),
);

function int(value: number | string | bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`payonce_webhook_deliveries: not a safe integer: ${String(value)}`);
  return n;
}

function recordOf(row: Selectable<DeliveriesTable>): DeliveryRecord {
  return Object.freeze({
    id: row.id,
    receivedAtMs: int(row.received_at),
    provider: row.provider,
    eventKey: row.event_key,
    eventType: row.event_type,
    signature: row.signature,
    decision: row.decision as DeliveryDecision,
    outcome: row.outcome as DeliveryOutcome,
    responseStatus: int(row.response_status),
    error: row.error,
    durationMs: int(row.duration_ms),
    objectId: row.object_id,
    paymentId: row.payment_id,
    merchantReference: row.merchant_reference,
    amountMinor: row.amount_minor === null ? null : int(row.amount_minor),
    currency: row.currency,
    payload: row.payload,
  });
}

/**
 * The delivery journal in `payonce_webhook_deliveries`, in the same database as the receipts (SQLite,
 * PostgreSQL, MySQL/MariaDB). Apply the migrations first (`payonce migrate` or `store.migrate()`); the table
 * comes with migration `0004-webhook-deliveries`. Each call is one statement.
 * @see docs/design.md §5 "Journal"; `src/stores/sql/migrations/0004-webhook-deliveries.ts`.
 * @example const journal = new SqlDeliveryJournal(store); await journal.forPayment({ reference: 'order-42' });
 */
export class SqlDeliveryJournal<DB = unknown> implements DeliveryJournal {
  private readonly db: Kysely<DeliveriesDatabase>;
  private readonly clock: Clock;
  private readonly statements: StatementCache;
  private readonly holder: KyselyHolder<DB>;

  /**
   * @param holder a SQL store (or anything with its Kysely `db` and `dialect`); the journal does not own or close it.
   * @param options.clock source of "now" for age-based purges. @default systemClock
   */
  constructor(holder: KyselyHolder<DB>, options: { clock?: Clock } = {}) {
    this.db = tablesOf<DeliveriesDatabase>(holder);
    this.clock = options.clock ?? systemClock;
    this.holder = holder;
    this.statements = holder.statements ?? new StatementCache(tablesOf<ReceiptsDatabase>(holder), holder.dialect);
  }

  async record(entry: DeliveryRecord): Promise<void> {
    const values = { ...entry, durationMs: Math.round(entry.durationMs) };
    if (this.holder.executeFixed) await this.holder.executeFixed(RECORD, values);
    else await executeStatement(this.db, this.statements, RECORD, values);
  }

  /** True when this journal's rows live on `db` (its holder's Kysely instance): its `recordIn` may use their transactions. */
  writesTo(db: unknown): boolean {
    return this.holder.db === db;
  }

  /**
   * Appends one row inside `tx`, a transaction on the same database, so the row commits with the delivery's receipt
   * or not at all. In a transaction the intake's group commit shares, the row is written with the other deliveries'
   * rows just before the commit (`writeBeforeCommit`: one statement on PostgreSQL), and dropped with the delivery's
   * savepoint when its work fails.
   * @throws whatever the driver throws (when the row is written now).
   */
  async recordIn(tx: Kysely<unknown>, entry: DeliveryRecord): Promise<void> {
    const values = { ...entry, durationMs: Math.round(entry.durationMs) };
    await writeBeforeCommit(tx, this.statements.template(RECORD).bind(values));
  }

  async forPayment(lookup: PaymentLookup | string): Promise<DeliveryRecord[]> {
    const { reference, provider } = lookupOf(lookup);
    let query = this.db
      .selectFrom('payonce_webhook_deliveries')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('object_id', '=', reference),
          eb('payment_id', '=', reference),
          eb('merchant_reference', '=', reference),
        ]),
      );
    if (provider !== undefined) query = query.where('provider', '=', provider);
    const rows = await query.orderBy('received_at').orderBy('id').execute();
    return rows.map(recordOf);
  }

  async purge(options: { olderThan: Date | number }): Promise<number> {
    const cutoff = journalCutoff(options.olderThan, this.clock);
    const result = await this.db
      .deleteFrom('payonce_webhook_deliveries')
      .where('received_at', '<', cutoff)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

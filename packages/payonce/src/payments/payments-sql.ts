import type { Kysely, QueryResult, Transaction } from 'kysely';
import {
  executeStatement,
  type StatementCache,
  type StatementDefinition,
  statementsOn,
} from '../stores/sql/compiled-statement.js';
import { tablesIn } from '../stores/sql/table-namespace.js';
import type { PaymentsContext } from './payments-context.js';
import type { PaymentsDatabase } from './payments-tables.js';

/**
 * Where a payments statement runs: the store's Kysely instance or a transaction on it, and the store's compiled
 * statements (`SqlStore.statements`, which also carry the store's dialect). The fixed statements of the payments
 * tables are compiled once per store on it and executed with fresh values (`src/stores/sql/compiled-statement.ts`).
 */
export interface PaymentsSql {
  /** Where the fixed statements run (compiled qualified already): the store's pool or the caller's transaction. */
  readonly db: Kysely<PaymentsDatabase>;
  /** `db` qualified with the store's `schema`, for query-builder statements; absent: `db` itself. */
  readonly tables?: Kysely<PaymentsDatabase>;
  readonly statements: StatementCache;
}

/** Declares a fixed statement of the payments tables (see `statementsOn`). */
export const paymentsStatement = statementsOn<PaymentsDatabase>();

/** The store's pool, or `trx` when given, with the store's compiled statements. */
export function paymentsSql<DB>(ctx: PaymentsContext<DB>, trx?: Transaction<DB>): PaymentsSql {
  const db = (trx ?? ctx.store.db) as unknown as Kysely<PaymentsDatabase>;
  return { db, tables: tablesIn<PaymentsDatabase>(ctx.store, db), statements: ctx.store.statements };
}

/** Runs ONE fixed payments statement with `values` in its slots on `on.db`; driver errors propagate unchanged. */
export function runPaymentsStatement<N extends string, R>(
  on: PaymentsSql,
  definition: StatementDefinition<N, R, PaymentsDatabase>,
  values: Readonly<Record<N, unknown>>,
): Promise<QueryResult<R>> {
  return executeStatement(on.db, on.statements, definition, values);
}

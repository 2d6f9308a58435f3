import type { Kysely } from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import type { SqlDialectName } from './sql-dialect.js';

/**
 * A namespace name payonce accepts: a letter or `_`, then letters, digits or `_`, at most 63 characters (PostgreSQL's
 * identifier limit; MySQL allows 64). It is always quoted, so it is case-sensitive on PostgreSQL.
 */
const NAMESPACE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Every payonce object a statement names that lives in a namespace and may be qualified with it: the tables, the
 * migration ledger and PostgreSQL's finish-trigger function. Index, constraint, trigger and sequence names are never
 * qualified in DDL (PostgreSQL puts them in their table's schema; MySQL's belong to their table).
 */
const QUALIFIED_NAMES = [
  'payonce_receipts',
  'payonce_outbox',
  'payonce_outbox_order',
  'payonce_outbox_trace',
  'payonce_effects',
  'payonce_webhook_deliveries',
  'payonce_orders',
  'payonce_payment_attempts',
  'payonce_payment_events',
  'payonce_payment_refunds',
  'payonce_payment_attempt_trace',
  'payonce_service_fulfilments',
  'payonce_service_refunds',
  'payonce_admin_actions',
  'payonce_payme_transactions',
  'payonce_payme_keys',
  'payonce_click_transactions',
  'payonce_uzum_transactions',
  'payonce_migration',
  'payonce_migration_lock',
  'payonce_receipt_finished_notify',
];

/** One of {@link QUALIFIED_NAMES} as a whole identifier: not part of a longer name, not already qualified. */
const QUALIFIED_NAME = new RegExp(`(?<![A-Za-z0-9_."\`])(${QUALIFIED_NAMES.join('|')})(?![A-Za-z0-9_])`, 'g');

/** The server's own catalogs, never a place for payonce's tables (PostgreSQL reserves `pg_*` names). */
const SYSTEM_NAMESPACE = /^(pg_.*|information_schema|mysql|performance_schema|sys)$/i;

/** What carries a namespace: a SQL store (`SqlStore.schema`), or a `{ db, dialect, schema }` target. */
export interface Namespaced {
  /** A Kysely instance (`Kysely<DB>` of any `DB`). */
  readonly db: { withSchema(schema: string): object };
  /** The PostgreSQL schema or MySQL database of payonce's tables; `null`/absent: the connection's own. */
  readonly schema?: string | null;
}

/**
 * Checks a `schema` option: `undefined`/`null` → `null` (the connection's search_path or database, as before).
 * @throws {InvalidOption} (`schema`) on SQLite (no schemas: payonce's tables all start with `payonce_`), for a
 *   name that is not 1–63 letters, digits or `_` starting with a letter or `_`, or for a system schema or database
 *   (`pg_*`, `information_schema`, `mysql`, `performance_schema`, `sys`: the server's own catalogs).
 */
export function checkSchema(schema: unknown, dialect: SqlDialectName): string | null {
  if (schema === undefined || schema === null) return null;
  if (dialect === 'sqlite') {
    throw new InvalidOption('schema', 'is not supported on SQLite (its payonce tables all start with payonce_)');
  }
  if (typeof schema !== 'string' || !NAMESPACE.test(schema)) {
    throw new InvalidOption('schema', 'must be 1-63 letters, digits or _, starting with a letter or _');
  }
  if (SYSTEM_NAMESPACE.test(schema)) {
    throw new InvalidOption(
      'schema',
      `is a system ${dialect === 'mysql' ? 'database' : 'schema'} of the server: name one of your own`,
    );
  }
  return schema;
}

/** `name` quoted as an identifier of `dialect` (a name `checkSchema` accepted needs no escaping). */
export function quoteIdentifier(dialect: SqlDialectName, name: string): string {
  return dialect === 'mysql' ? `\`${name}\`` : `"${name}"`;
}

/** A payonce table as SQL text: `table` as is without a schema, else `"schema".table` (MySQL `` `db`.table ``). */
export function qualifiedTable(dialect: SqlDialectName, schema: string | null, table: string): string {
  return schema === null ? table : `${quoteIdentifier(dialect, schema)}.${table}`;
}

/**
 * A raw statement (DDL of a migration, a fixed multi-row statement) with every payonce table, ledger table and
 * function it names qualified with `schema`; `statement` unchanged when `schema` is `null`.
 */
export function qualifyStatement(dialect: SqlDialectName, schema: string | null, statement: string): string {
  if (schema === null) return statement;
  const prefix = `${quoteIdentifier(dialect, schema)}.`;
  return statement.replace(QUALIFIED_NAME, (name) => prefix + name);
}

/** The scoped view of each Kysely instance, made once per instance (a store's pool, a transaction). */
const scopedViews = new WeakMap<object, { readonly schema: string; readonly view: Kysely<unknown> }>();

/**
 * `db` with every table of its queries qualified by `schema` (Kysely's `withSchema`); `db` itself when `schema` is
 * `null` or absent. The view is made once per instance and schema, so a store's pool gets one for its life and a
 * transaction one for its own (no allocation per query). Used for payonce's query-builder statements on a store or
 * on a caller's transaction (including the Kysely view of `joinTransaction`): the namespace comes from the store's
 * option, never from the connection's search_path.
 */
export function onSchema<T>(db: { withSchema(schema: string): object }, schema: string | null | undefined): Kysely<T> {
  if (schema === null || schema === undefined) return db as unknown as Kysely<T>;
  const cached = scopedViews.get(db);
  if (cached !== undefined && cached.schema === schema) return cached.view as Kysely<T>;
  const view = db.withSchema(schema) as Kysely<unknown>;
  scopedViews.set(db, { schema, view });
  return view as unknown as Kysely<T>;
}

/** `target.db` qualified with `target.schema` (see {@link onSchema}), typed with payonce's tables `T`. */
export function tablesOf<T>(target: Namespaced): Kysely<T> {
  return onSchema<T>(target.db, target.schema);
}

/** `trx` (a caller's transaction on `target`'s database) qualified with `target.schema` (see {@link onSchema}). */
export function tablesIn<T>(target: { readonly schema?: string | null }, trx: unknown): Kysely<T> {
  return onSchema<T>(trx as Kysely<unknown>, target.schema);
}

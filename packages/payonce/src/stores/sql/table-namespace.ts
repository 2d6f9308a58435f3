import type { Kysely } from 'kysely';
import { InvalidOption } from '../../core/errors.js';
import type { SqlDialectName } from './sql-dialect.js';
import { DEFAULT_TABLE_PREFIX, prefixedName, prefixedStatement, tablePrefixPlugin } from './table-prefix.js';

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
  'payonce_receipt_trace',
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
  'payonce_service_order_traces',
  'payonce_admin_actions',
  'payonce_payme_transactions',
  'payonce_payme_keys',
  'payonce_click_transactions',
  'payonce_uzum_transactions',
  'payonce_telegram_charges',
  'payonce_migration',
  'payonce_migration_lock',
  'payonce_receipt_finished_notify',
];

/**
 * One of {@link QUALIFIED_NAMES} as a whole identifier: not part of a longer name, not already qualified, not a
 * string literal (MySQL's migration 0005 names its table as a value of `information_schema`).
 */
const QUALIFIED_NAME = new RegExp(`(?<![A-Za-z0-9_."'\`])(${QUALIFIED_NAMES.join('|')})(?![A-Za-z0-9_])`, 'g');

/** MySQL's migration 0005 looks its index up in the session's database; with a schema it is in that database. */
const MYSQL_SESSION_DATABASE = 'table_schema = database()';

/** The server's own catalogs, never a place for payonce's tables (PostgreSQL reserves `pg_*` names). */
const SYSTEM_NAMESPACE = /^(pg_.*|information_schema|mysql|performance_schema|sys)$/i;

/** What carries a namespace: a SQL store (`SqlStore.schema`), or a `{ db, dialect, schema }` target. */
export interface Namespaced {
  /** A Kysely instance (`Kysely<DB>` of any `DB`). */
  readonly db: { withSchema(schema: string): object };
  /** The PostgreSQL schema or MySQL database of payonce's tables; `null`/absent: the connection's own. */
  readonly schema?: string | null;
  /** What payonce's table names start with instead of `payonce_` (`SqlStoreOptions.tablePrefix`); absent: `payonce_`. */
  readonly tablePrefix?: string | null;
}

/**
 * Checks a `schema` option: `undefined`/`null` → `null` (the connection's search_path or database, as before).
 * @throws {InvalidOption} (`schema`) on SQLite (no schemas: the `tablePrefix` option names payonce's tables), for a
 *   name that is not 1–63 letters, digits or `_` starting with a letter or `_`, or for a system schema or database
 *   (`pg_*`, `information_schema`, `mysql`, `performance_schema`, `sys`: the server's own catalogs).
 */
export function checkSchema(schema: unknown, dialect: SqlDialectName): string | null {
  if (schema === undefined || schema === null) return null;
  if (dialect === 'sqlite') {
    throw new InvalidOption('schema', 'is not supported on SQLite: give payonce its own table names with tablePrefix');
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

/**
 * A payonce table as SQL text: `table` (a `payonce_…` name) under `tablePrefix` (see `prefixedName`), as is without
 * a schema, else `"schema".table` (MySQL `` `db`.table ``).
 */
export function qualifiedTable(
  dialect: SqlDialectName,
  schema: string | null,
  table: string,
  tablePrefix: string = DEFAULT_TABLE_PREFIX,
): string {
  const name = prefixedName(tablePrefix, table);
  return schema === null ? name : `${quoteIdentifier(dialect, schema)}.${name}`;
}

/**
 * A raw statement (DDL of a migration, a fixed multi-row statement) with every payonce table, ledger table and
 * function it names qualified with `schema` (on MySQL, an `information_schema` lookup in `database()` looks in
 * `schema` instead), and every `payonce_…` name in it (tables, indexes, constraints,
 * triggers, functions, the notification channel) renamed to start with `tablePrefix` (see `prefixedStatement`);
 * `statement` unchanged with neither (`schema` `null`, prefix `payonce_`).
 */
export function qualifyStatement(
  dialect: SqlDialectName,
  schema: string | null,
  statement: string,
  tablePrefix: string = DEFAULT_TABLE_PREFIX,
): string {
  const qualified =
    schema === null
      ? statement
      : statement
          .replace(QUALIFIED_NAME, (name) => `${quoteIdentifier(dialect, schema)}.${name}`)
          .replaceAll(
            MYSQL_SESSION_DATABASE,
            dialect === 'mysql' ? `table_schema = '${schema}'` : MYSQL_SESSION_DATABASE,
          );
  return prefixedStatement(tablePrefix, qualified);
}

/** The scoped view of each Kysely instance, made once per instance (a store's pool, a transaction). */
const scopedViews = new WeakMap<
  object,
  { readonly schema: string | null; readonly prefix: string; readonly view: Kysely<unknown> }
>();

/**
 * `db` with every table of its queries qualified by `schema` (Kysely's `withSchema`) and every `payonce_…` table
 * renamed to start with `tablePrefix` (`tablePrefixPlugin`); `db` itself when `schema` is `null` or absent and the
 * prefix is `payonce_` (or absent). The view is made once per instance and namespace, so a store's pool gets one
 * for its life and a transaction one for its own (no allocation per query). Used for payonce's query-builder
 * statements on a store or on a caller's transaction (including the Kysely view of `joinTransaction`): the namespace
 * comes from the store's options, never from the connection's search_path.
 */
export function onSchema<T>(
  db: { withSchema(schema: string): object },
  schema: string | null | undefined,
  tablePrefix?: string | null,
): Kysely<T> {
  const scope = schema ?? null;
  const prefix = tablePrefix ?? DEFAULT_TABLE_PREFIX;
  if (scope === null && prefix === DEFAULT_TABLE_PREFIX) return db as unknown as Kysely<T>;
  const cached = scopedViews.get(db);
  if (cached !== undefined && cached.schema === scope && cached.prefix === prefix) return cached.view as Kysely<T>;
  const scoped = (scope === null ? db : db.withSchema(scope)) as Kysely<unknown>;
  const view = prefix === DEFAULT_TABLE_PREFIX ? scoped : scoped.withPlugin(tablePrefixPlugin(prefix));
  scopedViews.set(db, { schema: scope, prefix, view });
  return view as unknown as Kysely<T>;
}

/** `target.db` in `target`'s namespace (schema and table prefix, see {@link onSchema}), typed with payonce's tables `T`. */
export function tablesOf<T>(target: Namespaced): Kysely<T> {
  return onSchema<T>(target.db, target.schema, target.tablePrefix);
}

/** `trx` (a caller's transaction on `target`'s database) in `target`'s namespace (see {@link onSchema}). */
export function tablesIn<T>(
  target: { readonly schema?: string | null; readonly tablePrefix?: string | null },
  trx: unknown,
): Kysely<T> {
  return onSchema<T>(trx as Kysely<unknown>, target.schema, target.tablePrefix);
}

import type { SqlDialectName } from '../sql-dialect.js';

/** A key column of a trace side table: its name and its type on each dialect (as the owning table's key). */
export interface TraceKeyColumn {
  readonly name: string;
  readonly types: Readonly<Record<SqlDialectName, string>>;
}

const TRACE_TYPE: Readonly<Record<SqlDialectName, string>> = Object.freeze({
  postgres: 'varchar(1024)',
  mysql: 'varchar(1024) character set ascii collate ascii_bin',
  sqlite: 'text',
});

const TABLE_OPTIONS: Readonly<Record<SqlDialectName, string>> = Object.freeze({
  postgres: '',
  mysql: ' engine = InnoDB default character set utf8mb4 collate utf8mb4_bin',
  sqlite: '',
});

/**
 * The `create table if not exists` of a trace side table on `dialect`: the owning row's key (one column: `primary
 * key` inline; several: a `primary key (…)` constraint) and `trace_context not null` (the stored W3C trace context,
 * JSON `{"traceparent","tracestate"}`, at most 1024 ASCII characters). payonce keeps a trace context beside a row
 * (an outbox job, a payment attempt, a webhook receipt) in a side table rather than a new column, so the statements
 * stay `if not exists` (SQLite has no `add column if not exists`). Migrations 0016, 0017 and 0018 are this shape;
 * the text for one key column is the text those migrations were released with.
 * @see docs/observability.md "Propagation across hops".
 */
export function traceSideTable(table: string, key: readonly TraceKeyColumn[], dialect: SqlDialectName): string {
  const single = key.length === 1;
  const columns = key.map(
    (column) => `  ${column.name} ${column.types[dialect]} not null${single ? ' primary key' : ''}`,
  );
  columns.push(`  trace_context ${TRACE_TYPE[dialect]} not null`);
  if (!single) columns.push(`  primary key (${key.map((column) => column.name).join(', ')})`);
  return `create table if not exists ${table} (\n${columns.join(',\n')}\n)${TABLE_OPTIONS[dialect]}`;
}

/** The statements of a trace side table, per dialect (one each). */
export function traceSideTableStatements(
  table: string,
  key: readonly TraceKeyColumn[],
): Readonly<Record<SqlDialectName, readonly string[]>> {
  return Object.freeze({
    postgres: [traceSideTable(table, key, 'postgres')],
    mysql: [traceSideTable(table, key, 'mysql')],
    sqlite: [traceSideTable(table, key, 'sqlite')],
  });
}

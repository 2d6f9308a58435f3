import type { SqlMigration } from './sql-migration.js';

/**
 * The reference service's trace ids of orders (group `service`; the library never reads it):
 * `payonce_service_order_traces`, at most one row per order (`order_id` the primary key) holding the W3C trace id
 * (32 lowercase hex digits) of the request that created the order or last checked it out with tracing on
 * (`payonce serve --otel`), shown by the console and `GET /orders/:id`; an order without a row has no trace. A table
 * of its own rather than a column on `payonce_orders`: `alter table … add column` has no `if not exists` on SQLite
 * or MySQL, and every statement of `payonce migrate --print-sql` must be idempotent. Times are BIGINT epoch ms, UTC.
 * Released: never edit; add `0015-…` instead.
 */
export const serviceOrderTraces0014: SqlMigration = Object.freeze({
  name: '0014-service-order-traces',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_service_order_traces (
  order_id varchar(64) not null primary key,
  trace_id varchar(32) not null,
  updated_at bigint not null
)`,
    ],
    mysql: [
      `create table if not exists payonce_service_order_traces (
  order_id varchar(64) not null primary key,
  trace_id varchar(32) character set ascii collate ascii_bin not null,
  updated_at bigint not null
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_service_order_traces (
  order_id text not null primary key,
  trace_id text not null,
  updated_at integer not null
)`,
    ],
  }),
});

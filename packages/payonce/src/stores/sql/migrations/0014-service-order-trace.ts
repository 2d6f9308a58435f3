import type { SqlMigration } from './sql-migration.js';

/**
 * The reference service's trace id of an order (group `service`; the library never reads it): a nullable
 * `trace_id` column on `payonce_orders`, 32 lowercase hex digits (a W3C trace id), set by `payonce serve --otel`
 * when the order is created or checked out, shown by the console and `GET /orders/:id`. NULL for every order
 * written without tracing.
 * Released: never edit; add `0015-…` instead.
 */
export const serviceOrderTrace0014: SqlMigration = Object.freeze({
  name: '0014-service-order-trace',
  statements: Object.freeze({
    postgres: ['alter table payonce_orders add column if not exists trace_id varchar(32)'],
    mysql: ['alter table payonce_orders add column trace_id varchar(32) character set ascii collate ascii_bin null'],
    sqlite: ['alter table payonce_orders add column trace_id text'],
  }),
});

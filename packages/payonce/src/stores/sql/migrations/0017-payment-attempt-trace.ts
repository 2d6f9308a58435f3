import type { SqlMigration } from './sql-migration.js';

/**
 * The W3C trace context of payment attempts (group `payments`): `payonce_payment_attempt_trace`, one row per
 * attempt created inside a recorded OpenTelemetry span (the checkout), holding its `traceparent` and `tracestate`
 * as JSON; a provider's webhook delivery for that attempt links its span to it. A side table rather than a new
 * column of `payonce_payment_attempts`, so the statements stay `if not exists` (SQLite has no
 * `add column if not exists`). Released: never edit; add `0016-…`.
 * @see docs/observability.md "Propagation"; https://www.w3.org/TR/trace-context/
 */
export const paymentAttemptTrace0017: SqlMigration = Object.freeze({
  name: '0017-payment-attempt-trace',
  statements: Object.freeze({
    postgres: [
      `create table if not exists payonce_payment_attempt_trace (
  attempt_id varchar(64) not null primary key,
  trace_context varchar(1024) not null
)`,
    ],
    mysql: [
      `create table if not exists payonce_payment_attempt_trace (
  attempt_id varchar(64) character set ascii collate ascii_bin not null primary key,
  trace_context varchar(1024) character set ascii collate ascii_bin not null
) engine = InnoDB default character set utf8mb4 collate utf8mb4_bin`,
    ],
    sqlite: [
      `create table if not exists payonce_payment_attempt_trace (
  attempt_id text not null primary key,
  trace_context text not null
)`,
    ],
  }),
});

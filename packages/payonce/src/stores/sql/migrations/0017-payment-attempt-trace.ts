import type { SqlMigration } from './sql-migration.js';
import { traceSideTableStatements } from './trace-side-table.js';

/**
 * The W3C trace context of payment attempts (group `payments`): `payonce_payment_attempt_trace`, one row per
 * attempt created inside a recorded OpenTelemetry span (the checkout), holding its `traceparent` and `tracestate`
 * as JSON; a provider's webhook delivery for that attempt links its span to it. A side table rather than a new
 * column of `payonce_payment_attempts`, so the statements stay `if not exists` (SQLite has no
 * `add column if not exists`). Released: never edit (the shared shape, `traceSideTable`, yields its released text); add `0018-…`.
 * @see docs/observability.md "Propagation"; https://www.w3.org/TR/trace-context/
 */
export const paymentAttemptTrace0017: SqlMigration = Object.freeze({
  name: '0017-payment-attempt-trace',
  statements: traceSideTableStatements('payonce_payment_attempt_trace', [
    {
      name: 'attempt_id',
      types: { postgres: 'varchar(64)', mysql: 'varchar(64) character set ascii collate ascii_bin', sqlite: 'text' },
    },
  ]),
});

import type { SqlMigration } from './sql-migration.js';
import { traceSideTableStatements } from './trace-side-table.js';

/**
 * The W3C trace context of outbox jobs (group `outbox`): `payonce_outbox_trace`, one row per job enqueued inside a
 * recorded OpenTelemetry span (`Outbox.enqueueOnce` with an SDK registered), holding the `traceparent` and
 * `tracestate` of its enqueue span as JSON; the worker's run span and the relay's publish span continue that trace.
 * Written in the enqueue's own transaction, so it commits with the job; a job enqueued without an SDK has no row.
 * A side table rather than a new outbox column, so the statements stay `if not exists` (SQLite has no
 * `add column if not exists`). Released: never edit (the shared shape, `traceSideTable`, yields its released text); add `0018-…`.
 * @see docs/observability.md "Propagation"; https://www.w3.org/TR/trace-context/
 */
export const outboxTrace0016: SqlMigration = Object.freeze({
  name: '0016-outbox-trace',
  statements: traceSideTableStatements('payonce_outbox_trace', [
    {
      name: 'job_id',
      types: { postgres: 'varchar(36)', mysql: 'varchar(36) character set ascii collate ascii_bin', sqlite: 'text' },
    },
  ]),
});

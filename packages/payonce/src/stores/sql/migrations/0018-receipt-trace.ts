import type { SqlMigration } from './sql-migration.js';
import { traceSideTableStatements } from './trace-side-table.js';

/**
 * The W3C trace context of a webhook receipt's first delivery (group `receipts`): `payonce_receipt_trace`, one row
 * per receipt whose handler ran inside a recorded OpenTelemetry span (the intake's `payonce.webhook.intake`), keyed
 * like `payonce_receipts` (provider, external_id: byte-exact, VARBINARY on MySQL/MariaDB); a redelivery's intake
 * span links to it. Deleted with its receipt by the purge. Released: never edit; add `0019-…`.
 * @see docs/observability.md "Propagation across hops"; https://www.w3.org/TR/trace-context/
 */
export const receiptTrace0018: SqlMigration = Object.freeze({
  name: '0018-receipt-trace',
  statements: traceSideTableStatements('payonce_receipt_trace', [
    { name: 'provider', types: { postgres: 'varchar(160)', mysql: 'varbinary(640)', sqlite: 'text' } },
    { name: 'external_id', types: { postgres: 'varchar(160)', mysql: 'varbinary(640)', sqlite: 'text' } },
  ]),
});

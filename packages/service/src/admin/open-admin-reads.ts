import { systemClock } from 'payonce/internal/core/clock.js';
import { tablesOf } from 'payonce/internal/stores/sql/table-namespace.js';
import { createRedactor } from 'payonce/internal/webhooks/journal/redact.js';
import { openServiceStore } from '../open-service-store.js';
import { resolveServiceConfig } from '../service-config.js';
import type { AdminReads } from './admin-reads.js';
import type { AdminDatabase } from './admin-tables.js';

/** Stale limits of the read commands, in ms, as `payonce serve` sets them. */
export interface ReadStaleOptions {
  /** `--idempotency-stale-after-ms` of the service. @default 60_000 */
  readonly idempotencyStaleAfterMs?: number;
  /** `--receipt-stale-after-ms` of the service (webhook and payment receipts). @default 300_000 */
  readonly receiptStaleAfterMs?: number;
}

/**
 * Opens the console's reads on a database URL (a SQLite path, `postgres://…`, `mysql://…`) for the CLI
 * (`payonce inspect order`, `payonce receipts`, `payonce jobs`): no service, no migration, read-only queries.
 * Stuck = `processing` older than the stale limit of the receipt's kind. Close it with `close()`.
 * @throws {InvalidOption} a malformed URL or stale limit. @throws the driver's error when the database cannot be opened.
 */
export async function openAdminReads(
  databaseUrl: string,
  stale: ReadStaleOptions = {},
): Promise<{ readonly reads: AdminReads; close(): Promise<void> }> {
  const config = resolveServiceConfig({
    databaseUrl,
    idempotencyStaleAfterMs: stale.idempotencyStaleAfterMs,
    receiptStaleAfterMs: stale.receiptStaleAfterMs,
  });
  const store = await openServiceStore(
    config.databaseUrl,
    undefined,
    undefined,
    config.databaseSchema,
    config.databaseTablePrefix,
  );
  const reads: AdminReads = {
    db: tablesOf<AdminDatabase>(store),
    dialect: store.name,
    clock: systemClock,
    redactor: createRedactor(),
    stale: {
      http: config.idempotencyStaleAfterMs,
      webhook: config.receiptStaleAfterMs,
      payments: config.receiptStaleAfterMs,
      webhookProviders: ['stripe', 'standard-webhooks'],
    },
  };
  return { reads, close: () => store.close() };
}

import type { ColumnType } from 'kysely';
import type { OutboxDatabase } from 'payonce/internal/outbox/outbox-tables.js';
import type { PaymentsDatabase } from 'payonce/internal/payments/payments-tables.js';
import type { ClickDatabase } from 'payonce/internal/providers/click/click-tables.js';
import type { PaymeDatabase } from 'payonce/internal/providers/payme/payme-tables.js';
import type { UzumDatabase } from 'payonce/internal/providers/uzum/uzum-tables.js';
import type { ReceiptsDatabase } from 'payonce/internal/stores/sql/receipts-table.js';
import type { DeliveriesDatabase } from 'payonce/internal/webhooks/journal/deliveries-table.js';
import type { ServiceDatabase } from '../service-tables.js';

type IntColumn = ColumnType<number | string | bigint, number, number>;

/**
 * One row of `payonce_admin_actions` (migration `0007-admin-actions`): one operator action. `at` is epoch ms UTC;
 * `dry_run` is 0 or 1; `outcome` is `done`, `refused` or `dry-run`; `detail` is the redacted JSON result.
 */
export interface AdminActionsTable {
  id: string;
  at: IntColumn;
  actor: string;
  via: string;
  action: string;
  target: string;
  order_id: string | null;
  dry_run: IntColumn;
  outcome: string;
  detail: string | null;
}

/** Name of the operator action journal table. */
export const ADMIN_ACTIONS_TABLE = 'payonce_admin_actions';

/** Every table the operator console reads, as one Kysely database type (the provider engines' tables included). */
export interface AdminDatabase
  extends ReceiptsDatabase,
    DeliveriesDatabase,
    OutboxDatabase,
    PaymentsDatabase,
    ServiceDatabase,
    PaymeDatabase,
    ClickDatabase,
    UzumDatabase {
  payonce_admin_actions: AdminActionsTable;
}

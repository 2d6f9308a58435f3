import { receipts0001 } from './0001-receipts.js';
import type { SqlMigration } from './sql-migration.js';

/** Every released migration, oldest first. Append new ones; never reorder or edit. */
export const ALL_MIGRATIONS: readonly SqlMigration[] = Object.freeze([receipts0001]);

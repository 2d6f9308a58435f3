import type { ColumnType } from 'kysely';

/** Name of the receipts table on every SQL backend. @see docs/design.md §3 "Schema". */
export const RECEIPTS_TABLE = 'payonce_receipts';

/**
 * A BIGINT/INT column: written as a JS number, read back as whatever the driver returns (`pg` returns
 * BIGINT as a decimal string, better-sqlite3 in safe-integer mode as `bigint`).
 */
type IntColumn = ColumnType<number | string | bigint, number, number>;

/**
 * One row of `payonce_receipts` as Kysely sees it. Key columns are text on PostgreSQL and SQLite and
 * VARBINARY (UTF-8 bytes) on MySQL/MariaDB, so they compare byte for byte everywhere. Times are Unix epoch
 * milliseconds, UTC. Exported so applications can add it to their own Kysely database type.
 */
export interface ReceiptsTable {
  provider: string | Uint8Array;
  external_id: string | Uint8Array;
  /** `processing`, `completed` or `failed`. */
  status: string;
  attempts: IntColumn;
  claimed_at: IntColumn;
  finished_at: ColumnType<number | string | bigint | null, number | null, number | null>;
  created_at: IntColumn;
  fingerprint: string | null;
  response_status: ColumnType<number | string | bigint | null, number | null, number | null>;
  /** JSON object of header name → value, in the order the handler gave them. */
  response_headers: string | null;
  response_body: Uint8Array | null;
  error: string | null;
}

/** The Kysely database type holding only the receipts table. */
export interface ReceiptsDatabase {
  payonce_receipts: ReceiptsTable;
}

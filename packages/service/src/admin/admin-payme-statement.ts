import type { Kysely } from 'kysely';
import { statementEntry } from 'payonce/internal/providers/payme/payme-outcome.js';
import { transactionsBetween } from 'payonce/internal/providers/payme/payme-rows.js';
import type { PaymeDatabase } from 'payonce/internal/providers/payme/payme-tables.js';
import { REDACTED } from 'payonce/internal/webhooks/journal/redact.js';
import { ServiceError } from '../service-error.js';
import type { AdminReads } from './admin-reads.js';

/** The range of a statement: Payme `time` from `fromMs` to `toMs`, epoch ms UTC, both inclusive (as GetStatement). */
export interface PaymeStatementQuery {
  readonly fromMs: number;
  readonly toMs: number;
}

/** A Payme statement as the console shows it: the range and GetStatement's `transactions`, oldest first. */
export interface PaymeStatement {
  readonly fromMs: number;
  readonly toMs: number;
  /**
   * GetStatement's transaction objects (`id`, `time`, `amount` in tiyin, `account`, `create_time`, `perform_time`,
   * `cancel_time`, `transaction`, `state`, `reason`, `receivers`), with `account` cut to the service's order field:
   * every other account field's value is `[REDACTED]` (a cashbox may ask the payer for a phone number).
   */
  readonly transactions: readonly Readonly<Record<string, unknown>>[];
}

/** `account` with only `accountField`'s value shown (scrubbed); the other fields' values redacted. */
function shownAccount(reads: AdminReads, account: unknown, accountField: string): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((account ?? {}) as Record<string, unknown>)) {
    shown[reads.redactor.scrubText(key)] =
      key === accountField && typeof value === 'string' ? reads.redactor.scrubText(value) : REDACTED;
  }
  return shown;
}

/**
 * The Payme statement of a time range: exactly the rows GetStatement answers for `from`/`to`, read by the engine's
 * own statement reader (`transactionsBetween`, `statementEntry`) outside any call, then redacted for the console.
 * `accountField` is the service's `paymeAccountField` (the one account field that names the order).
 * @throws {ServiceError} `ADMIN_QUERY_INVALID` when `fromMs` is after `toMs` (GetStatement answers -32600).
 * @see fixtures payme/rpc/GetStatement.json.
 */
export async function readPaymeStatement(
  reads: AdminReads,
  query: PaymeStatementQuery,
  accountField: string,
): Promise<PaymeStatement> {
  if (query.fromMs > query.toMs) throw new ServiceError('ADMIN_QUERY_INVALID', 'fromMs must not be after toMs');
  // `reads.db` holds the engine's tables (AdminDatabase extends PaymeDatabase), qualified with the service's schema.
  const rows = await transactionsBetween(reads.db as unknown as Kysely<PaymeDatabase>, query.fromMs, query.toMs);
  const transactions = rows.map((tx) => {
    const entry = statementEntry(tx);
    return {
      ...entry,
      id: reads.redactor.scrubText(tx.paymeId),
      account: shownAccount(reads, entry.account, accountField),
    };
  });
  return { fromMs: query.fromMs, toMs: query.toMs, transactions };
}

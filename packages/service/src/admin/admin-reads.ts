import type { Kysely } from 'kysely';
import type { Clock } from 'payonce/internal/core/clock.js';
import type { Store } from 'payonce/internal/core/store.js';
import type { SqlDialectName } from 'payonce/internal/stores/sql/sql-dialect.js';
import type { Redactor } from 'payonce/internal/webhooks/journal/redact.js';
import type { AdminDatabase } from './admin-tables.js';

/**
 * Stale limits (ms) of the three kinds of receipt in `payonce_receipts`: a `processing` receipt older than its
 * kind's limit is "stuck" (its holder died or hung) and may be taken over or released.
 */
export interface StaleLimits {
  /** `Idempotency-Key` receipts (namespaces `http`, `admin`): `idempotencyStaleAfterMs`. */
  readonly http: number;
  /** Webhook intake receipts (providers in `webhookProviders`): `receiptStaleAfterMs`. */
  readonly webhook: number;
  /** Receipts of `Payments` (`payments:<provider>`): its guard's `staleAfterMs`. */
  readonly payments: number;
  /** Receipt providers of the webhook endpoints (`stripe`, `standard-webhooks`). */
  readonly webhookProviders: readonly string[];
}

/** What the console's queries read from: the service's SQL database, its clock and redaction. */
export interface AdminReads {
  readonly db: Kysely<AdminDatabase>;
  readonly dialect: SqlDialectName;
  readonly clock: Clock;
  readonly stale: StaleLimits;
  readonly redactor: Redactor;
  /**
   * The webhook intake's receipt store when its receipts are not in `db` (Redis, `redisUrl`) and it can count its
   * abandoned claims (`Store.countAbandoned`); absent when they are in `db`.
   */
  readonly intakeReceipts?: Required<Pick<Store, 'countAbandoned'>>;
}

/** The stale limit (ms) of a receipt of `provider`. */
export function staleAfterFor(stale: StaleLimits, provider: string): number {
  if (provider.startsWith('payments:')) return stale.payments;
  if (stale.webhookProviders.includes(provider)) return stale.webhook;
  return stale.http;
}

/** A column value as a number (`pg` BIGINT arrives as a string, safe-integer SQLite as a bigint). */
export function num(value: number | string | bigint | null | undefined): number {
  return Number(value ?? 0);
}

/** A nullable column value as a number or `null`. */
export function numOrNull(value: number | string | bigint | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** A key column as text (MySQL VARBINARY comes back as bytes). */
export function text(value: string | Uint8Array): string {
  return typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
}

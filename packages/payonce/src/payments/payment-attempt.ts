import type { Selectable } from 'kysely';
import { intOf } from '../outbox/sql-transaction.js';
import type { AttemptStatus } from './attempt-status.js';
import type { PaymentAttemptsTable } from './payments-tables.js';

/** Prefix of every attempt's provider idempotency key: `payment-attempt:<attemptId>`. @see docs/design.md §6; seed 002. */
export const ATTEMPT_KEY_PREFIX = 'payment-attempt:';

/** One payment attempt of an order as stored. Money in integer minor units; times epoch ms UTC. @see docs/design.md §6. */
export interface PaymentAttempt {
  /** Random UUID; also the merchant reference sent to the provider. */
  readonly id: string;
  readonly orderId: string;
  /** `PaymentProvider.name` of the provider it was created with. */
  readonly provider: string;
  readonly status: AttemptStatus;
  readonly amountMinor: number;
  readonly currency: string;
  /** `payment-attempt:<id>`, fixed at insert; sent on every provider call for this attempt. */
  readonly idempotencyKey: string;
  /** The provider's payment id once known, else `null`. */
  readonly providerPaymentId: string | null;
  /** Where to send the customer for `requires_action`, else `null`. */
  readonly actionUrl: string | null;
  /** Why the attempt is `unknown`/`failed` (provider error text), else `null`. */
  readonly lastError: string | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/** The frozen `PaymentAttempt` of a selected row. */
export function toAttempt(row: Selectable<PaymentAttemptsTable>): PaymentAttempt {
  return Object.freeze({
    id: row.id,
    orderId: row.order_id,
    provider: row.provider,
    status: row.status as AttemptStatus,
    amountMinor: intOf(row.amount_minor, 'payonce_payment_attempts.amount_minor'),
    currency: row.currency,
    idempotencyKey: row.idempotency_key,
    providerPaymentId: row.provider_payment_id,
    actionUrl: row.action_url,
    lastError: row.last_error,
    createdAtMs: intOf(row.created_at, 'payonce_payment_attempts.created_at'),
    updatedAtMs: intOf(row.updated_at, 'payonce_payment_attempts.updated_at'),
  });
}

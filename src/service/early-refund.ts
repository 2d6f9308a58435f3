import type { Kysely } from 'kysely';
import { type AttemptStatus, isActiveAttempt } from '../payments/attempt-status.js';
import { ATTEMPTS_TABLE, type PaymentsDatabase } from '../payments/payments-tables.js';
import type { ProviderPaymentEvent } from '../payments/provider-payment-event.js';
import type { ServiceContext } from './service-context.js';

/**
 * A refund event arrived while its payment attempt is still active (`creating`, `pending`, `requires_action`,
 * `unknown`): the provider sent the refund before the success it refunds (out of order, e.g. the sandbox's
 * `reorder` knob). Thrown BEFORE anything is recorded, so the webhook answer is a 5xx and the provider's
 * redelivery, after the success was applied, refunds the order.
 */
export class RefundBeforeSuccess extends Error {
  readonly attemptId: string;
  constructor(attemptId: string, status: AttemptStatus) {
    super(`refund arrived while attempt ${attemptId} is ${status}: retry after the payment's success is applied`);
    this.name = 'RefundBeforeSuccess';
    this.attemptId = attemptId;
  }
}

/**
 * Guards the order of provider events: for a `refunded` event whose attempt (by provider payment id, else
 * merchant reference) is still active, throws {@link RefundBeforeSuccess}; otherwise returns. Without this,
 * `Payments` would journal the early refund `unchanged` ("refund reported for a pending attempt") under its
 * receipt, and the success arriving next would fulfil an order the provider already refunded.
 * @throws {RefundBeforeSuccess} as described; the driver's error when the database fails.
 * @see SPEC §9 scenario 17 ("paid" then "refund" both apply); docs/sandbox.md `reorder`.
 */
export async function deferEarlyRefund(ctx: ServiceContext, event: ProviderPaymentEvent): Promise<void> {
  if (event.status !== 'refunded') return;
  const { paymentId, merchantReference } = event;
  if (paymentId === null && merchantReference === null) return;
  const db = ctx.store.db as unknown as Kysely<PaymentsDatabase>;
  const rows = await db
    .selectFrom(ATTEMPTS_TABLE)
    .select(['id', 'status', 'provider_payment_id'])
    .where('provider', '=', event.provider)
    .where((eb) =>
      eb.or([
        ...(paymentId === null ? [] : [eb('provider_payment_id', '=', paymentId)]),
        ...(merchantReference === null ? [] : [eb('id', '=', merchantReference)]),
      ]),
    )
    .execute();
  const attempt = rows.find((row) => paymentId !== null && row.provider_payment_id === paymentId) ?? rows[0];
  if (attempt && isActiveAttempt(attempt.status as AttemptStatus)) {
    throw new RefundBeforeSuccess(attempt.id, attempt.status as AttemptStatus);
  }
}

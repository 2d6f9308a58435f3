import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { ATTEMPTS_TABLE, ORDERS_TABLE } from '../../packages/payonce/src/payments/payments-tables.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import type { ServiceOverrides } from '../../packages/service/src/service-overrides.js';
import { FULFILMENTS_TABLE } from '../../packages/service/src/service-tables.js';

/** The columns the naive handler touches. */
interface NaiveDatabase {
  [ORDERS_TABLE]: { id: string; status: string; updated_at: number };
  [ATTEMPTS_TABLE]: { id: string; order_id: string; provider_payment_id: string | null };
  [FULFILMENTS_TABLE]: {
    id: string;
    order_id: string;
    attempt_id: string | null;
    job_id: string | null;
    created_at: number;
  };
}

/** An intake guard that never remembers: every delivery runs on a fresh, empty store (receipts disabled). */
class ForgetfulGuard extends IdempotencyGuard {
  constructor() {
    super(new MemoryStore());
  }
  override run(...args: Parameters<IdempotencyGuard['run']>): ReturnType<IdempotencyGuard['run']> {
    return new IdempotencyGuard(new MemoryStore()).run(...args);
  }
}

/**
 * FAULTY: receipts disabled. The intake's guard never remembers and the event handler is the naive one: every
 * `succeeded` delivery marks the order paid and inserts a fulfilment row, whatever came before.
 * Scenarios 8 and 16 (and 9) must catch it.
 */
export const receiptsDisabled: ServiceOverrides = {
  intakeGuard: new ForgetfulGuard(),
  async applyPaymentEvent(ctx, event) {
    if (event.status !== 'succeeded') return { decision: 'unchanged' };
    const db = ctx.store.db as unknown as Kysely<NaiveDatabase>;
    const attempt = await db
      .selectFrom(ATTEMPTS_TABLE)
      .select(['id', 'order_id'])
      .where((eb) =>
        eb.or([eb('id', '=', event.merchantReference ?? ''), eb('provider_payment_id', '=', event.paymentId ?? '')]),
      )
      .executeTakeFirst();
    if (attempt === undefined) return { decision: 'unchanged' };
    const now = ctx.clock.now();
    await db
      .updateTable(ORDERS_TABLE)
      .set({ status: 'paid', updated_at: now })
      .where('id', '=', attempt.order_id)
      .execute();
    await db
      .insertInto(FULFILMENTS_TABLE)
      .values({ id: randomUUID(), order_id: attempt.order_id, attempt_id: attempt.id, job_id: null, created_at: now })
      .execute();
    return { decision: 'applied' };
  },
};

/**
 * FAULTY: checkout without the one-active-attempt constraint. When the order already has an active attempt, the
 * checkout still calls the provider, with a fresh idempotency key and merchant reference: a second payment.
 * Scenarios 2 (two tabs) and 4 must catch it (two charges for one order in the sandbox ledger).
 */
export const checkoutWithoutConstraint: ServiceOverrides = {
  async checkout(ctx, orderId, principal) {
    const result = await ctx.payments.openCheckout(orderId, principal);
    if (result.kind === 'attempt' && !result.created) {
      const { attempt } = result;
      await ctx.provider
        .createPayment({
          idempotencyKey: `naive-${randomUUID()}`,
          merchantReference: randomUUID(),
          orderId,
          amountMinor: attempt.amountMinor,
          currency: attempt.currency,
        })
        .catch(() => undefined);
    }
    return result;
  },
};

/** FAULTY: signature check off — both endpoints accept any delivery as authentic. Scenarios 10 and 18 must catch it. */
export const signatureCheckOff: ServiceOverrides = {
  signatureScheme: (_endpoint, byDefault) => ({
    name: byDefault.name,
    verify: () => ({ ok: true, scheme: byDefault.name, secretIndex: 0, timestampSec: null }),
  }),
};

/**
 * FAULTY: a provider timeout is taken as a failure. When the create call got no answer (attempt `unknown`), the
 * checkout marks the attempt `failed`, which frees the order for a new attempt and a second payment.
 * Scenarios 5 (lost response) and 15 (unknown result) must catch it.
 */
export const timeoutAsFailure: ServiceOverrides = {
  async checkout(ctx, orderId, principal) {
    const result = await ctx.payments.openCheckout(orderId, principal);
    if (result.kind !== 'attempt' || result.attempt.status !== 'unknown') return result;
    const db = ctx.store.db as unknown as Kysely<{ [ATTEMPTS_TABLE]: { id: string; status: string } }>;
    await db.updateTable(ATTEMPTS_TABLE).set({ status: 'failed' }).where('id', '=', result.attempt.id).execute();
    return { ...result, attempt: { ...result.attempt, status: 'failed' } };
  },
};

/**
 * FAULTY: amount, currency and order of an authentic event are not checked — the handler takes the attempt's own
 * amount and currency instead of the event's. Scenario 11 (valid signature, foreign amount/currency/order) must
 * catch it.
 */
export const eventMoneyUnchecked: ServiceOverrides = {
  async applyPaymentEvent(ctx, event) {
    const db = ctx.store.db as unknown as Kysely<{
      [ATTEMPTS_TABLE]: { id: string; provider_payment_id: string | null; amount_minor: number; currency: string };
    }>;
    const attempt = await db
      .selectFrom(ATTEMPTS_TABLE)
      .select(['amount_minor', 'currency'])
      .where((eb) =>
        eb.or([eb('id', '=', event.merchantReference ?? ''), eb('provider_payment_id', '=', event.paymentId ?? '')]),
      )
      .executeTakeFirst();
    if (attempt === undefined) return ctx.payments.applyProviderEvent(event);
    const trusted = { ...event, amountMinor: Number(attempt.amount_minor), currency: attempt.currency, orderId: null };
    return ctx.payments.applyProviderEvent(trusted);
  },
};

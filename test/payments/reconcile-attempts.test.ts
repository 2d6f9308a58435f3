import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { PaymentAttempt } from '../../packages/payonce/src/payments/payment-attempt.js';
import type { ProviderPayment } from '../../packages/payonce/src/payments/payment-provider.js';
import { type CheckoutResult, Payments } from '../../packages/payonce/src/payments/payments.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';

/** A provider whose look-ups fail while `down` is set. */
class FlakyLookups extends InMemoryPaymentProvider {
  down = false;
  override async getPaymentByReference(merchantReference: string): Promise<ProviderPayment | null> {
    if (this.down) throw new Error('provider unreachable');
    return super.getPaymentByReference(merchantReference);
  }
}

function attemptOf(result: CheckoutResult): PaymentAttempt {
  if (result.kind !== 'attempt') throw new Error(`expected an attempt, got ${result.kind}`);
  return result.attempt;
}

const EVENT = { as: 'event', receiptPrefix: 'reconcile-test' } as const;

describe('Payments.reconcileAttempt / reconcileAttempts: one reconciliation step, one attempt or a batch', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  beforeAll(async () => {
    backend = await createSqlBackend('sqlite');
    store = await backend.open();
  });
  afterAll(async () => {
    await backend?.drop();
  });

  function setup() {
    const provider = new FlakyLookups();
    const clock = new ManualClock(Date.now());
    const payments = new Payments(store, { provider, clock });
    const pendingAttempt = async (principal: string) => {
      const order = await payments.createOrder(principal, { amountMinor: 1500, currency: 'EUR' });
      return attemptOf(await payments.openCheckout(order.id, principal));
    };
    return { provider, clock, payments, pendingAttempt };
  }

  it('event mode: a new status is applied once under the caller receipt prefix; the same status changes nothing', async () => {
    const { provider, payments, pendingAttempt } = setup();
    const attempt = await pendingAttempt('ann');
    expect(attempt.status).toBe('pending');
    expect(await payments.reconcileAttempt(attempt, EVENT)).toMatchObject({ outcome: 'unchanged', attempt });
    provider.setStatus(attempt.providerPaymentId as string, 'succeeded');
    const done = await payments.reconcileAttempt(attempt, EVENT);
    expect(done).toMatchObject({ outcome: 'event-applied', payment: { status: 'succeeded' } });
    if (done.outcome !== 'event-applied') throw new Error('unreachable');
    expect(done.result).toMatchObject({ decision: 'applied', becamePaid: true });
    expect((await payments.findOrder(attempt.orderId))?.status).toBe('paid');
    const journal = await payments.journalOf(attempt.orderId);
    const reconciled = journal.filter((e) => e.eventType === 'reconciliation');
    expect(reconciled).toHaveLength(1);
    expect(reconciled[0]?.eventId).toMatch(new RegExp(`^reconcile-test:${attempt.id}:`));
  });

  it('event mode: a provider that knows no payment, or cannot be reached, writes nothing and re-sends nothing', async () => {
    const { provider, payments } = setup();
    const order = await payments.createOrder('bea', { amountMinor: 900, currency: 'EUR' });
    provider.failNextCreate('timeout-before-create');
    const unknown = attemptOf(await payments.openCheckout(order.id, 'bea'));
    expect(unknown.status).toBe('unknown');
    expect(await payments.reconcileAttempt(unknown, EVENT)).toMatchObject({ outcome: 'not-found' });
    provider.down = true;
    const failed = await payments.reconcileAttempt(unknown, EVENT);
    expect(failed).toMatchObject({ outcome: 'lookup-failed', error: new Error('provider unreachable') });
    expect(provider.createCalls).toHaveLength(1);
    expect(await payments.attemptsOf(order.id)).toMatchObject([{ id: unknown.id, status: 'unknown' }]);
  });

  it('create-answer mode: a payment the provider does not know is created by re-sending the same key', async () => {
    const { provider, payments } = setup();
    const order = await payments.createOrder('cal', { amountMinor: 700, currency: 'EUR' });
    provider.failNextCreate('timeout-before-create');
    const unknown = attemptOf(await payments.openCheckout(order.id, 'cal'));
    const done = await payments.reconcileAttempt(unknown, { as: 'create-answer' });
    expect(done).toMatchObject({ outcome: 'recorded', resent: true, updated: { status: 'pending' } });
    expect(provider.createCalls.map((c) => c.idempotencyKey)).toEqual([unknown.idempotencyKey, unknown.idempotencyKey]);
  });

  it('a batch: only the statuses and age asked for, oldest first, skipped ids passed over without taking the limit', async () => {
    const { clock, payments, pendingAttempt } = setup();
    const first = await pendingAttempt('dan');
    clock.advance(1_000);
    const second = await pendingAttempt('dan');
    clock.advance(1_000);
    const third = await pendingAttempt('dan');
    clock.advance(1_000);
    const fresh = await pendingAttempt('dan');
    const asked: string[] = [];
    const options = {
      statuses: ['pending'] as const,
      olderThanMs: 1_000,
      limit: 2,
      mode: EVENT,
      onAsk: (a: PaymentAttempt) => asked.push(a.id),
    };
    const ids = [first.id, second.id, third.id];
    const mine = (list: readonly { attempt: PaymentAttempt }[]) =>
      list.map((d) => d.attempt.id).filter((id) => ids.includes(id));
    const run = await payments.reconcileAttempts({ ...options, limit: 100 });
    expect(mine(run)).toEqual(ids);
    expect(run.map((d) => d.attempt.id)).not.toContain(fresh.id);
    expect(run.filter((d) => ids.includes(d.attempt.id)).every((d) => d.outcome === 'unchanged')).toBe(true);
    asked.length = 0;
    const others = new Set(run.map((d) => d.attempt.id).filter((id) => !ids.includes(id)));
    const skipped = await payments.reconcileAttempts({ ...options, skip: new Set([...others, first.id]) });
    expect(skipped.map((d) => d.attempt.id)).toEqual([second.id, third.id]);
    expect(asked).toEqual([second.id, third.id]);
    const earlier = await payments.reconcileAttempts({ ...options, skip: others, nowMs: clock.now() - 2_000 });
    expect(earlier.map((d) => d.attempt.id)).toEqual([first.id]);
  });

  it('refuses a batch without statuses or with an unknown one', async () => {
    const { payments } = setup();
    for (const statuses of [[], ['pending', 'lost']]) {
      await expect(
        payments.reconcileAttempts({ statuses: statuses as never, olderThanMs: 0, mode: EVENT }),
      ).rejects.toBeInstanceOf(InvalidOption);
    }
  });
});

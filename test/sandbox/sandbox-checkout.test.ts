import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import type { PaymentAttempt } from '../../packages/payonce/src/payments/payment-attempt.js';
import { type CheckoutResult, Payments } from '../../packages/payonce/src/payments/payments.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import { SandboxClient } from '../../packages/sandbox/src/sandbox-client.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';

function attemptOf(result: CheckoutResult): PaymentAttempt {
  if (result.kind !== 'attempt') throw new Error(`expected an attempt, got ${result.kind}`);
  return result.attempt;
}

// The sandbox client behind payonce's own checkout (SQLite file): a lost answer is `unknown`, never `failed`,
// and reconciliation by merchant reference finds the one payment the sandbox made.
describe('sandbox client behind Payments.openCheckout (sqlite)', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  let sandbox: Sandbox;
  let client: SandboxClient;
  beforeAll(async () => {
    backend = await createSqlBackend('sqlite');
    store = await backend.open();
    // No webhook target here: one delivery attempt per event, so idle() does not wait for retries.
    sandbox = await createSandbox({ timeScale: 0.001, retryScheduleMs: [0] });
    client = new SandboxClient({ baseUrl: sandbox.url, name: 'sandbox', timeoutMs: 1_000 });
  });
  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
    await backend?.drop();
  });

  it('timeout after commit → attempt unknown; reconcile → succeeded with the same payment; one charge', async () => {
    const clock = new ManualClock(Date.now());
    const payments = new Payments(store, { provider: client, clock });
    const order = await payments.createOrder('customer-1', { amountMinor: 2500, currency: 'EUR' });
    sandbox.controls.plan({ orderId: order.id }, { responseFault: 'hang-after-commit', hangMs: 5_000 });

    const unknown = attemptOf(await payments.openCheckout(order.id, 'customer-1'));
    expect(unknown.status).toBe('unknown');
    expect(unknown.lastError).toContain('no answer within 1000 ms');
    expect(sandbox.controls.ledger(unknown.id).paymentIds).toHaveLength(1);
    expect(await sandbox.controls.idle()).toBe(true);

    clock.advance(60_000);
    expect(await payments.reconcile({ olderThanMs: 60_000 })).toMatchObject({ examined: 1, resolved: 1 });
    const [resolved] = await payments.attemptsOf(order.id);
    expect(resolved).toMatchObject({ id: unknown.id, status: 'succeeded' });
    expect(resolved?.providerPaymentId).toBe(sandbox.controls.ledger(unknown.id).paymentIds[0]);
    expect((await payments.openCheckout(order.id, 'customer-1')).kind).toBe('already-paid');
    expect(sandbox.controls.charges(unknown.id)).toBe(1);
    expect(sandbox.controls.createRequests()).toBe(1);
  });

  it('decline → attempt failed, the order can be paid by a new attempt', async () => {
    const payments = new Payments(store, { provider: client });
    const order = await payments.createOrder('customer-2', { amountMinor: 1200, currency: 'USD' });
    sandbox.controls.plan({ orderId: order.id }, { outcome: 'decline' });
    const declined = attemptOf(await payments.openCheckout(order.id, 'customer-2'));
    expect(declined.status).toBe('failed');
    const next = attemptOf(await payments.openCheckout(order.id, 'customer-2'));
    expect(next.id).not.toBe(declined.id);
    expect(next.status).toBe('pending');
    expect(sandbox.controls.charges(declined.id)).toBe(0);
  });
});

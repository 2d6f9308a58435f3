import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckoutResult } from '../../packages/payonce/src/payments/payments.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import { SandboxClient } from '../../packages/sandbox/src/sandbox-client.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';

function attemptOf(result: CheckoutResult) {
  if (result.kind !== 'attempt') throw new Error(`expected an attempt, got ${result.kind}`);
  return result.attempt;
}

// The attacker's reproduction of issue #7 at test speed: the sandbox answers the create after 1 500 ms, the client
// gives up after 300 ms, reconciliation runs while the provider has not committed yet.
describe('sqlite + sandbox: a slow provider and an early reconciliation never lead to a second charge', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  let sandbox: Sandbox;
  let client: SandboxClient;
  beforeAll(async () => {
    backend = await createSqlBackend('sqlite');
    store = await backend.open();
    sandbox = await createSandbox({ timeScale: 0.001 });
    client = new SandboxClient({ baseUrl: sandbox.url, timeoutMs: 300 });
  });
  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
    await backend?.drop();
  });

  it('timeout → unknown; "not found" → the create is re-sent with the same key; one payment, one charge, one attempt', async () => {
    const payments = new Payments(store, { provider: client });
    const order = await payments.createOrder('alice', { amountMinor: 4200, currency: 'EUR' });
    sandbox.controls.plan({ orderId: order.id }, { responseDelayMs: 1_500 });
    const unknown = attemptOf(await payments.openCheckout(order.id, 'alice'));
    expect(unknown.status).toBe('unknown');
    expect(await client.getPaymentByReference(unknown.id)).toBeNull();

    const report = await payments.reconcile({ olderThanMs: 0 });
    const [after] = await payments.attemptsOf(order.id);
    expect(after?.id).toBe(unknown.id);
    expect(after?.status).not.toBe('failed');
    const again = await payments.openCheckout(order.id, 'alice');
    expect(again).toMatchObject({ kind: 'attempt', created: false, attempt: { id: unknown.id } });
    expect(report).toMatchObject({ examined: 1, resent: 1 });

    await new Promise((resolve) => setTimeout(resolve, 1_700));
    await payments.reconcile({ olderThanMs: 0 });
    const ledger = sandbox.controls.orderLedger(order.id);
    expect(ledger.paymentIds).toHaveLength(1);
    expect(ledger.merchantReferences).toEqual([unknown.id]);
    expect(ledger.chargeCount).toBe(1);
    expect(await payments.attemptsOf(order.id)).toHaveLength(1);
    expect((await payments.attemptsOf(order.id))[0]?.providerPaymentId).toBe(ledger.paymentIds[0]);
  });
});

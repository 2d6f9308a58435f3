import { describe, expect, it } from 'vitest';
import { withStringIds } from '../../../packages/storm/src/app/adapter-ids.js';
import { appProviderOrders } from '../../../packages/storm/src/app/app-provider-orders.js';
import type { StormAppAdapter, StormOrderState } from '../../../packages/storm/src/app/storm-app-adapter.js';
import { timelineEvent } from '../../../packages/storm/src/storm-timeline.js';

/** What an app with a serial primary key hands over: numbers where the adapter's types say strings. */
const num = (n: number) => n as unknown as string;

const answer = { status: 201, headers: {}, text: '{}', json: {} };

function serialKeyApp(): StormAppAdapter {
  const state: StormOrderState = {
    status: 'completed',
    amountMinor: 1999,
    currency: 'EUR',
    paidTransitions: 1,
    fulfilments: 1,
    attempts: [{ id: num(7), status: 'succeeded', providerPaymentId: 'pi_1', amountMinor: 1999, currency: 'EUR' }],
    jobs: [{ id: num(9), topic: 'order.fulfil', status: 'done', attempts: 1 }],
    journal: [{ eventId: 'evt_1', status: 'succeeded', decision: 'applied', reason: null }],
    deliveries: [{ eventId: null, decision: 'rejected' }],
  };
  return {
    name: 'serial shop',
    health: async () => {},
    webhookUrl: () => 'http://127.0.0.1:1/webhooks/stripe',
    createOrder: async () => ({ ...answer, orderId: num(42) }),
    startPayment: async () => ({
      ...answer,
      attemptId: num(7),
      attemptStatus: 'pending',
      providerPaymentId: null,
      outcome: 'created',
    }),
    readOrder: async () => state,
    capabilities: { attempts: true, jobs: true },
  };
}

// Found by an attacker: numeric order ids (a serial primary key) failed every scenario with
// `scenario error: out.replace is not a function` (the timeline redacted the id as a string).
describe('numeric ids from an adapter', () => {
  it('are kept in the timeline as their decimal string, not a crash', () => {
    const event = timelineEvent({ atMs: 1, orderId: num(42), actor: 'storm→app', what: 'create order' });
    expect(event.orderId).toBe('42');
  });

  it('reach the storm as decimal strings through withStringIds: order, attempt, job ids', async () => {
    const app = withStringIds(serialKeyApp());
    const call = { customer: 'c', orderId: '42' };
    expect((await app.createOrder({ customer: 'c', money: { amountMinor: 1999, currency: 'EUR' } })).orderId).toBe(
      '42',
    );
    expect((await app.startPayment({ ...call, idempotencyKey: 'k' })).attemptId).toBe('7');
    const state = await app.readOrder(call);
    expect(state.attempts?.[0]?.id).toBe('7');
    expect(state.jobs?.[0]?.id).toBe('9');
    expect(state.deliveries?.[0]?.eventId).toBeNull();
    expect(app.capabilities).toEqual({ attempts: true, jobs: true });
  });

  it('keeps the this of a class-based adapter', async () => {
    class Shop {
      readonly name = 'class shop';
      private readonly inner = serialKeyApp();
      health = async () => {};
      webhookUrl() {
        return this.inner.webhookUrl('stripe');
      }
      createOrder(call: Parameters<StormAppAdapter['createOrder']>[0]) {
        return this.inner.createOrder(call);
      }
      startPayment(call: Parameters<StormAppAdapter['startPayment']>[0]) {
        return this.inner.startPayment(call);
      }
      readOrder(call: Parameters<StormAppAdapter['readOrder']>[0]) {
        return this.inner.readOrder(call);
      }
    }
    const app = withStringIds(new Shop());
    expect(app.webhookUrl('stripe')).toMatch(/webhooks/);
    expect((await app.createOrder({ customer: 'c', money: { amountMinor: 1, currency: 'EUR' } })).orderId).toBe('42');
  });

  it('give the provider storms a string order id', async () => {
    const orders = appProviderOrders(serialKeyApp(), 'storm-payme');
    expect(await orders.createOrder(100_000)).toBe('42');
  });
});

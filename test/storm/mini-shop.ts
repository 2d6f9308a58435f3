import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SANDBOX_API_KEY } from '../../packages/sandbox/src/wire/api-key.js';
import type {
  AppOrderAnswer,
  AppPaymentAnswer,
  StormAppAdapter,
  StormOrderState,
} from '../../packages/storm/src/app/storm-app-adapter.js';

/** What a {@link startMiniShop} gets wrong on purpose (nothing, by default). */
export interface MiniShopFaults {
  /** Charges the order's amount times this at the provider (1: the order's amount). @default 1 */
  readonly chargeFactor?: number;
  /** Answers the checkout "201 created pending" without ever calling the provider. */
  readonly skipProvider?: boolean;
  /** Hands the storm its order ids as numbers (a serial primary key), not strings. */
  readonly numericIds?: boolean;
}

interface ShopOrder {
  readonly id: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly key: string | null;
  status: 'awaiting_payment' | 'completed';
  attemptId: string | null;
  paidTransitions: number;
  fulfilments: number;
}

/** A running mini shop: its adapter (for `runStorm({ app })`) and how to stop its webhook server. */
export interface MiniShop {
  readonly adapter: StormAppAdapter;
  close(): Promise<void>;
}

const answer = (status: number, body: unknown) => ({
  status,
  headers: { 'content-type': 'application/json' },
  text: JSON.stringify(body),
  json: body,
});

/**
 * A tiny in-memory shop with a storm adapter, for the judge's own tests: orders keyed by the customer's
 * Idempotency-Key (422 on a reuse with another amount), one attempt per order (a second checkout answers
 * `existing`), a PaymentIntent at the sandbox per attempt, and a webhook endpoint (no signature check: only run the
 * scenarios that send no forged event) that marks the order paid and fulfilled once on `payment_intent.succeeded`.
 * `faults` make it wrong in ways the storm must catch.
 */
export async function startMiniShop(sandboxUrl: string, faults: MiniShopFaults = {}): Promise<MiniShop> {
  const orders = new Map<string, ShopOrder>();
  // Serial ids, from a random start: every shop of one sandbox has its own orders in the sandbox's ledger.
  let serial = randomInt(1_000_000, 1_000_000_000);
  const idOut = (id: string) => (faults.numericIds ? (Number(id) as unknown as string) : id);
  const find = (id: unknown) => orders.get(String(id));

  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const event = JSON.parse(body) as { type?: string; data?: { object?: { metadata?: { order_id?: string } } } };
      const order = find(event.data?.object?.metadata?.order_id);
      if (event.type === 'payment_intent.succeeded' && order !== undefined && order.status !== 'completed') {
        Object.assign(order, { status: 'completed', paidTransitions: 1, fulfilments: 1 });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/stripe`;

  async function charge(order: ShopOrder, key: string): Promise<void> {
    const reply = await fetch(`${sandboxUrl}/v1/payment_intents`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${SANDBOX_API_KEY}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify({
        amount: order.amountMinor * (faults.chargeFactor ?? 1),
        currency: order.currency.toLowerCase(),
        confirm: true,
        metadata: { order_id: order.id, merchant_reference: order.attemptId },
      }),
    });
    if (!reply.ok) throw new Error(`the sandbox answered ${reply.status}: ${await reply.text()}`);
  }

  const adapter: StormAppAdapter = {
    name: 'mini shop',
    async health() {},
    webhookUrl: () => webhookUrl,
    async createOrder({ money, idempotencyKey }): Promise<AppOrderAnswer> {
      const earlier = [...orders.values()].find((o) => idempotencyKey !== undefined && o.key === idempotencyKey);
      if (earlier !== undefined && earlier.amountMinor !== money.amountMinor) {
        return { ...answer(422, { error: 'key reused' }), orderId: null };
      }
      serial += earlier === undefined ? 1 : 0;
      const order = earlier ?? {
        id: String(serial),
        ...money,
        key: idempotencyKey ?? null,
        status: 'awaiting_payment' as const,
        attemptId: null,
        paidTransitions: 0,
        fulfilments: 0,
      };
      orders.set(order.id, order);
      return { ...answer(201, { id: order.id }), orderId: idOut(order.id) };
    },
    async startPayment({ orderId, idempotencyKey }): Promise<AppPaymentAnswer> {
      const order = find(orderId);
      if (order === undefined)
        return { ...answer(404, {}), attemptId: null, attemptStatus: null, providerPaymentId: null, outcome: null };
      const created = order.attemptId === null;
      if (created) {
        order.attemptId = randomUUID();
        if (!faults.skipProvider) await charge(order, idempotencyKey);
      }
      return {
        ...answer(created ? 201 : 200, { attemptId: order.attemptId }),
        attemptId: order.attemptId,
        attemptStatus: 'pending',
        providerPaymentId: null,
        outcome: created ? 'created' : 'existing',
      };
    },
    async readOrder({ orderId }): Promise<StormOrderState> {
      const order = find(orderId);
      if (order === undefined) throw new Error(`no order ${orderId}`);
      const { status, amountMinor, currency, paidTransitions, fulfilments } = order;
      return { status, amountMinor, currency, paidTransitions, fulfilments };
    },
  };
  return {
    adapter,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

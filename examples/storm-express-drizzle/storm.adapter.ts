// The storm adapter of this shop (docs/storm-your-app.md): `payonce storm --adapter storm.adapter.ts --start "npm start"`.
import type { StormAppAdapter, StormAppSetup, StormOrderStatus } from '@payonce/storm';

/** The shop's order statuses in the storm's words. */
const STATUS: Readonly<Record<string, StormOrderStatus>> = {
  new: 'draft',
  awaiting_payment: 'awaiting_payment',
  reserved: 'awaiting_payment',
  paid: 'paid',
  fulfilled: 'completed',
  refunded: 'refunded',
  cancelled: 'cancelled',
};

/** `GET /orders/:id` of the shop (src/order-routes.ts). */
interface ShopOrder {
  status: string;
  amountMinor: number;
  currency: string;
  paidTransitions: number;
  refunds: number;
  fulfilments: number;
  attempts: { id: string; status: string; providerPaymentId: string | null; amountMinor: number; currency: string }[];
}

/** A fetch answer as the storm records it: status, lower-case headers, text and parsed JSON (or null). */
async function call(url: string, init: RequestInit & { customer: string; key?: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-customer-id': init.customer };
  if (init.key !== undefined) headers['idempotency-key'] = `"${init.key}"`;
  const response = await fetch(url, { ...init, headers });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: the storm reports the text
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), text, json };
}

/**
 * Maps the storm's operations to the shop over HTTP. Capabilities: `attempts` (GET /orders/:id lists them). No
 * outbox jobs or journal in its API, no Stripe refunds, no replicas; `payonce storm --start` adds `crashAndRestart`.
 * Providers: Payme at `/payme` (`--provider payme`; the shop reads the cashbox key from PAYONCE_STORM_PAYME_KEY),
 * Click at `/click/prepare` and `/click/complete` (`--provider click`; PAYONCE_STORM_CLICK_SERVICE_ID and _SECRET_KEY),
 * Uzum at `/uzum` (`--provider uzum`; PAYONCE_STORM_UZUM_LOGIN, _PASSWORD and _SERVICE_ID), Telegram Stars at
 * `/webhooks/telegram` with invoices through `POST /orders/:id/telegram-invoice` (`--provider telegram`; the shop reads
 * PAYONCE_STORM_TELEGRAM_API_URL, _BOT_TOKEN and _WEBHOOK_SECRET; Stars refunds through
 * `POST /orders/:id/telegram-refund`).
 */
export default function adapter(setup: StormAppSetup): StormAppAdapter {
  const base = setup.appUrl;
  return {
    name: 'shop (express + drizzle)',
    async health() {
      const answer = await fetch(`${base}/healthz`);
      if (answer.status !== 200) throw new Error(`GET ${base}/healthz answered ${answer.status}`);
    },
    webhookUrl: () => `${base}/webhooks/stripe`,
    async createOrder({ customer, money, idempotencyKey }) {
      const body = JSON.stringify({ amount: money.amountMinor, currency: money.currency });
      const answer = await call(`${base}/orders`, { method: 'POST', body, customer, key: idempotencyKey });
      const id = (answer.json as { id?: unknown } | null)?.id;
      return { ...answer, orderId: answer.status === 201 && typeof id === 'string' ? id : null };
    },
    async startPayment({ customer, orderId, idempotencyKey }) {
      const url = `${base}/orders/${encodeURIComponent(orderId)}/pay`;
      const answer = await call(url, { method: 'POST', body: '{}', customer, key: idempotencyKey });
      const paid = (answer.json ?? {}) as Record<string, unknown>;
      const text = (value: unknown) => (typeof value === 'string' ? value : null);
      const outcome = text(paid.outcome);
      return {
        ...answer,
        attemptId: text(paid.attemptId),
        attemptStatus: text(paid.attemptStatus),
        providerPaymentId: text(paid.providerPaymentId),
        outcome: outcome === 'created' || outcome === 'existing' || outcome === 'already-paid' ? outcome : null,
      };
    },
    async readOrder({ customer, orderId }) {
      const answer = await call(`${base}/orders/${encodeURIComponent(orderId)}`, { method: 'GET', customer });
      if (answer.status !== 200) throw new Error(`GET /orders/${orderId} answered ${answer.status}: ${answer.text}`);
      const order = answer.json as ShopOrder;
      return {
        status: STATUS[order.status] ?? 'draft',
        amountMinor: order.amountMinor,
        currency: order.currency,
        paidTransitions: order.paidTransitions,
        fulfilments: order.fulfilments,
        refunds: order.refunds,
        attempts: order.attempts,
      };
    },
    capabilities: { attempts: true },
    providers: {
      payme: { merchantUrl: `${base}/payme`, accountField: 'order_id' },
      click: { prepareUrl: `${base}/click/prepare`, completeUrl: `${base}/click/complete` },
      uzum: { merchantUrl: `${base}/uzum`, orderParam: 'account' },
      telegram: {
        webhookUrl: `${base}/webhooks/telegram`,
        async sendInvoice({ customer, orderId, chatId }) {
          const url = `${base}/orders/${encodeURIComponent(orderId)}/telegram-invoice`;
          const answer = await call(url, { method: 'POST', body: JSON.stringify({ chatId }), customer });
          const sent = (answer.json as { sent?: unknown } | null)?.sent;
          if (answer.status !== 200 || sent !== true) {
            throw new Error(
              `POST /orders/:id/telegram-invoice answered ${answer.status}: ${answer.text.slice(0, 200)}`,
            );
          }
        },
        async requestRefund({ customer, orderId, userId, chargeId }) {
          const url = `${base}/orders/${encodeURIComponent(orderId)}/telegram-refund`;
          const answer = await call(url, { method: 'POST', body: JSON.stringify({ userId, chargeId }), customer });
          return { status: answer.status };
        },
      },
    },
  };
}

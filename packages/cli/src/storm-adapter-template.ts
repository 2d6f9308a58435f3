/**
 * The commented adapter file `payonce storm init` writes (docs/storm-your-app.md): a `StormAppAdapter` for an app
 * with `POST /orders`, `POST /orders/:id/pay` and `GET /orders/:id`, every line to adapt marked `ADAPT`.
 */
export const STORM_ADAPTER_TEMPLATE = `// storm.adapter.ts — how \`payonce storm\` drives YOUR app (docs/storm-your-app.md).
// Written by \`payonce storm init\`. Every line marked ADAPT maps one storm operation to your app.
//
// The storm starts a sandbox provider (Stripe-shaped API) and gives its URL and webhook secret here (setup) and
// in your app's environment: PAYONCE_STORM_SANDBOX_URL, PAYONCE_STORM_WEBHOOK_SECRET, PAYONCE_STORM_API_KEY.
// Your app must call the sandbox instead of Stripe (e.g. new Stripe(key, { host, port, protocol })) and verify
// the sandbox's webhooks with that secret.
import type { StormAppAdapter, StormAppSetup, StormOrderStatus } from '@payonce/storm';

async function call(method: string, url: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {}
  return { status: response.status, headers: Object.fromEntries(response.headers), text, json };
}

export default function adapter(setup: StormAppSetup): StormAppAdapter {
  const app = setup.appUrl; // --url, e.g. http://127.0.0.1:3000
  return {
    name: 'my app', // ADAPT: shown in the report
    async health() {
      const answer = await call('GET', \`\${app}/healthz\`, {}); // ADAPT: your readiness route
      if (answer.status !== 200) throw new Error(\`the app answered \${answer.status} at \${app}/healthz\`);
    },
    // ADAPT: where the sandbox's Stripe webhooks must go (your Stripe webhook route).
    webhookUrl: () => \`\${app}/webhooks/stripe\`,
    async createOrder({ customer, money, idempotencyKey }) {
      // ADAPT: your create-order route; amounts are integer minor units (cents).
      const headers: Record<string, string> = { 'x-customer-id': customer };
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
      const answer = await call('POST', \`\${app}/orders\`, headers, {
        amountMinor: money.amountMinor,
        currency: money.currency,
      });
      const id = (answer.json as { id?: unknown } | null)?.id; // ADAPT: where your answer names the order
      return { ...answer, orderId: typeof id === 'string' ? id : null };
    },
    async startPayment({ customer, orderId, idempotencyKey }) {
      // ADAPT: your pay route; it must call the sandbox (setup.sandboxUrl) to create the payment.
      const answer = await call(
        'POST',
        \`\${app}/orders/\${encodeURIComponent(orderId)}/pay\`,
        { 'x-customer-id': customer, 'idempotency-key': idempotencyKey },
        {},
      );
      const json = answer.json as { attempt?: { id?: string; status?: string; providerPaymentId?: string } } | null;
      return {
        ...answer,
        attemptId: json?.attempt?.id ?? null, // ADAPT: your payment attempt (or payment intent) id
        attemptStatus: json?.attempt?.status ?? null,
        providerPaymentId: json?.attempt?.providerPaymentId ?? null,
        outcome: null, // ADAPT: 'created' | 'existing' | 'already-paid' when your app says
      };
    },
    async readOrder({ customer, orderId }) {
      // ADAPT: read the order and its effects (over HTTP here; a SQL query on your database works too).
      const answer = await call('GET', \`\${app}/orders/\${encodeURIComponent(orderId)}\`, { 'x-customer-id': customer });
      if (answer.status !== 200) throw new Error(\`GET /orders/\${orderId} answered \${answer.status}\`);
      const order = answer.json as { status: string; amountMinor: number; currency: string; paidTransitions: number; fulfilments: number };
      return {
        status: order.status as StormOrderStatus, // ADAPT: map your states to draft/awaiting_payment/paid/…/refunded
        amountMinor: order.amountMinor,
        currency: order.currency,
        paidTransitions: order.paidTransitions, // how many times the order moved to paid
        fulfilments: order.fulfilments, // how many times the goods were shipped
      };
    },
    // ADAPT: declare what else your app can show or do; scenarios needing what is missing are SKIPPED, saying why.
    capabilities: {
      // attempts: true,  // readOrder returns attempts (scenarios 1, 2, 4, 5, 6, 15)
      // jobs: true,      // readOrder returns jobs with order.fulfil (12, 14)
      // journal: true,   // readOrder returns journal and deliveries (18; the journal check of 11)
      // refunds: true,   // charge.refunded makes the order refunded (17)
    },
    // ADAPT: your other providers' endpoints, for \`payonce storm --adapter … --provider payme|click|uzum|telegram\`
    // (the app gets PAYONCE_STORM_PAYME_KEY, PAYONCE_STORM_CLICK_*, PAYONCE_STORM_UZUM_*, and for Telegram
    // PAYONCE_STORM_TELEGRAM_API_URL, _BOT_TOKEN, _WEBHOOK_SECRET); a provider left out is SKIPPED.
    // providers: {
    //   payme: { merchantUrl: \`\${app}/payme\`, accountField: 'order_id' },
    //   click: { prepareUrl: \`\${app}/click/prepare\`, completeUrl: \`\${app}/click/complete\` },
    //   uzum: { merchantUrl: \`\${app}/uzum\`, orderParam: 'account' },
    //   telegram: {
    //     webhookUrl: \`\${app}/webhooks/telegram\`,
    //     // have the app send the XTR order's invoice (payload = the order id) to chatId through its Bot API
    //     sendInvoice: async ({ customer, orderId, chatId }) => { /* e.g. POST \${app}/orders/:id/telegram-invoice */ },
    //   },
    // },
  };
}
`;

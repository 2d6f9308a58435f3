import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import type { SandboxSigningScheme } from '../../packages/sandbox/src/webhook-signer.js';
import { createService, type PaymentService } from '../../packages/service/src/create-service.js';
import type { ServiceOptions } from '../../packages/service/src/service-options.js';
import { createSqliteNamespace } from '../contract/backends/sqlite.js';

/** A sandbox provider and a reference service wired to each other over loopback HTTP. */
export interface Harness {
  readonly sandbox: Sandbox;
  readonly service: PaymentService;
  /** The service's database URL (a SQLite file unless given). */
  readonly databaseUrl: string;
  close(): Promise<void>;
}

/** Service options every test uses: fast timings, silent logs. */
export const FAST = Object.freeze({
  port: 0,
  workerPollMs: 20,
  leaseMs: 5_000,
  retryBaseMs: 50,
  reconcileEveryMs: 100,
  reconcileAfterMs: 1_000,
  logLevel: 'silent',
}) satisfies ServiceOptions;

/**
 * Starts a sandbox (`timeScale` 0.001, signing `scheme`) and a service on a fresh SQLite file (or
 * `options.databaseUrl`), points the sandbox's webhooks at the matching endpoint.
 */
export async function startHarness(
  options: ServiceOptions & {
    scheme?: SandboxSigningScheme;
    dropDatabase?: () => Promise<void>;
    /** Point the sandbox's webhooks at the service. @default true */
    connectWebhooks?: boolean;
  } = {},
): Promise<Harness> {
  const { scheme = 'stripe', dropDatabase: _drop, connectWebhooks: _connect, ...serviceOptions } = options;
  const sandbox = await createSandbox({ timeScale: 0.001, signing: { scheme } });
  let drop = options.dropDatabase ?? (async () => {});
  let databaseUrl = options.databaseUrl;
  if (databaseUrl === undefined) {
    const ns = await createSqliteNamespace();
    databaseUrl = ns.path;
    drop = ns.drop;
  }
  const secret = sandbox.controls.signing().secret;
  let service: PaymentService;
  try {
    service = await createService({
      ...FAST,
      ...serviceOptions,
      databaseUrl,
      providerUrl: sandbox.url,
      ...(scheme === 'stripe' ? { stripeWebhookSecrets: secret } : { standardWebhooksSecrets: secret }),
    });
  } catch (error) {
    await sandbox.close();
    await drop();
    throw error;
  }
  if (options.connectWebhooks !== false) sandbox.controls.setWebhookUrl(`${service.url}/webhooks/${scheme}`);
  return {
    sandbox,
    service,
    databaseUrl,
    async close() {
      await sandbox.close();
      await service.close();
      await drop();
    },
  };
}

/** A JSON answer of the service. */
export interface Answer<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

/** Calls the service with `X-Customer-Id: customer` (unless `null`) and parses the JSON answer. */
export async function call<T = Record<string, unknown>>(
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  init: { customer?: string | null; key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...init.headers };
  const customer = init.customer === undefined ? 'customer-a' : init.customer;
  if (customer !== null) headers['x-customer-id'] = customer;
  if (init.key !== undefined) headers['idempotency-key'] = init.key;
  let body: string | undefined;
  if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** Polls `probe` every 25 ms until it returns a truthy value, or throws after `timeoutMs`. */
export async function until<T>(
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** The parts of an `OrderView` the tests read. */
export interface ViewBody {
  order: { id: string; status: string; amountMinor: number; currency: string; paidAttemptId: string | null };
  attempts: { id: string; status: string; providerPaymentId: string | null; idempotencyKey: string }[];
  paidTransitions: number;
  fulfilments: { id: string; attemptId: string | null; jobId: string | null }[];
  refunds: { id: string }[];
  jobs: { id: string; topic: string; status: string; attempts: number; lastError: string | null }[];
  journal: { eventId: string; eventType: string; status: string; decision: string; reason: string | null }[];
  deliveries: { provider: string; eventId: string | null; decision: string; outcome: string }[];
}

/** Creates an order and opens its checkout; returns the order id and the checkout answer. */
export async function orderAndCheckout(baseUrl: string, amountMinor = 1999, currency = 'EUR', customer = 'customer-a') {
  const created = await call<{ order: { id: string } }>(baseUrl, 'POST', '/orders', {
    customer,
    body: { amountMinor, currency },
  });
  if (created.status !== 201) throw new Error(`POST /orders answered ${created.status}: ${created.text}`);
  const orderId = created.body.order.id;
  const checkout = await call<{ outcome: string; attempt: { id: string; status: string } | null }>(
    baseUrl,
    'POST',
    `/orders/${orderId}/checkout`,
    { customer, key: `checkout-${orderId}` },
  );
  return { orderId, checkout };
}

/** Waits until the order is `completed` with its fulfilment job `done`, and returns the view. */
export async function untilFulfilled(baseUrl: string, orderId: string, customer = 'customer-a', timeoutMs = 10_000) {
  return until(
    async () => {
      const view = await call<ViewBody>(baseUrl, 'GET', `/orders/${orderId}`, { customer });
      const done = view.body.jobs.some((job) => job.topic === 'order.fulfil' && job.status === 'done');
      return view.body.order.status === 'completed' && done ? view.body : null;
    },
    timeoutMs,
    `order ${orderId} to be fulfilled`,
  );
}

/** Posts `body` to a webhook endpoint of the service with `headers`; returns status and text. */
export async function deliver(baseUrl: string, endpoint: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${baseUrl}/webhooks/${endpoint}`, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after') };
}

/** A Stripe event envelope about a PaymentIntent, as the sandbox sends it (amount in minor units). */
export function stripeIntentEvent(input: {
  eventId: string;
  type: string;
  paymentId: string;
  merchantReference: string;
  orderId?: string;
  amountMinor: number;
  currency: string;
}): string {
  return JSON.stringify({
    id: input.eventId,
    object: 'event',
    api_version: '2024-06-20',
    created: Math.floor(Date.now() / 1000),
    type: input.type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: {
      object: {
        id: input.paymentId,
        object: 'payment_intent',
        amount: input.amountMinor,
        currency: input.currency.toLowerCase(),
        status: 'succeeded',
        metadata: {
          merchant_reference: input.merchantReference,
          ...(input.orderId === undefined ? {} : { order_id: input.orderId }),
        },
      },
    },
  });
}

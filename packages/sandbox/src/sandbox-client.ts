import { InvalidOption } from 'payonce/internal/core/errors.js';
import type {
  CreatePaymentRequest,
  PaymentProvider,
  ProviderPayment,
  ProviderPaymentStatus,
} from 'payonce/internal/payments/payment-provider.js';
import { ProviderDeclined } from 'payonce/internal/payments/provider-declined.js';
import { Agent, request } from 'undici';
import { SandboxClientError } from './sandbox-client-error.js';
import { SANDBOX_API_KEY } from './wire/api-key.js';
import { encodeStripeForm } from './wire/stripe-form.js';

/** Options of {@link SandboxClient}. */
export interface SandboxClientOptions {
  /** The sandbox's base URL, e.g. `Sandbox.url`. */
  baseUrl: string;
  /** Provider name; must equal the `provider` of the webhook profile receiving its events. @default 'stripe' */
  name?: string;
  /** Limit on one call from request start to the end of the answer body, ms. @default 10_000 */
  timeoutMs?: number;
  /** Test secret key sent as `Authorization: Bearer …`. @default SANDBOX_API_KEY (`sk_test_payonce_sandbox`) */
  apiKey?: string;
}

type Json = { [key: string]: unknown };

interface Answer {
  readonly status: number;
  readonly body: Json | null;
}

function objectOf(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

/**
 * Maps a Stripe PaymentIntent status to the port's: `processing`, `requires_confirmation`, `requires_capture` →
 * `pending`; `requires_payment_method` → `failed` after a decline (`last_payment_error` set), else `pending`;
 * `canceled` → `cancelled`. @see https://docs.stripe.com/payments/paymentintents/lifecycle
 */
function statusOf(intent: Json): ProviderPaymentStatus {
  switch (intent.status) {
    case 'succeeded':
      return 'succeeded';
    case 'requires_action':
      return 'requires_action';
    case 'canceled':
      return 'cancelled';
    case 'requires_payment_method':
      return intent.last_payment_error == null ? 'pending' : 'failed';
    default:
      return 'pending';
  }
}

/**
 * `PaymentProvider` over the sandbox's HTTP API (`createSandbox`), on Stripe's wire format as the official SDK
 * sends it (form bodies in bracket notation encoded by `encodeStripeForm`, `Authorization: Bearer sk_test_…`):
 * the idempotency key goes in `Idempotency-Key`, the merchant reference and order id in `metadata`, amounts in
 * integer minor units (currency sent lower case, returned upper case). It creates with `confirm=true` and no
 * payment method: the sandbox's asynchronous test method (`processing`, settled by its plan; docs/sandbox.md).
 * - `402 card_error` and `400 invalid_request_error` (nothing was created) → `ProviderDeclined`;
 * - no answer within `timeoutMs` → `SandboxClientError` `SANDBOX_TIMEOUT` (`isTimeout`);
 * - connection refused/reset/closed → `SANDBOX_CONNECTION_LOST`; any other answer (5xx, `idempotency_error`)
 *   → `SANDBOX_API_ERROR`. These mean "unknown": checkout records the attempt `unknown`.
 * `getPaymentByReference` returns the succeeded payment of the reference if any, else the newest, else `null`.
 * `cancel` returns the payment's state afterwards, also when the sandbox refuses because it is already final.
 * @throws {InvalidOption} at construction: base URL not http(s), bad timeout.
 * @see docs/design.md §6 (port contract); src/payments/payment-provider.ts.
 * @example const provider = new SandboxClient({ baseUrl: sandbox.url, timeoutMs: 2_000 });
 */
export class SandboxClient implements PaymentProvider {
  readonly name: string;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly apiKey: string;
  private readonly agent = new Agent({ keepAliveTimeout: 1_000 });

  constructor(options: SandboxClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new InvalidOption('baseUrl', 'is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidOption('baseUrl', 'must be http(s)');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.name = options.name ?? 'stripe';
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.apiKey = options.apiKey ?? SANDBOX_API_KEY;
    if (!Number.isSafeInteger(this.timeoutMs) || this.timeoutMs < 1 || this.timeoutMs > 600_000) {
      throw new InvalidOption('timeoutMs', 'must be an integer from 1 to 600000');
    }
  }

  async createPayment(req: CreatePaymentRequest): Promise<ProviderPayment> {
    const operation = 'POST /v1/payment_intents';
    const answer = await this.call('POST', '/v1/payment_intents', {
      headers: { 'idempotency-key': req.idempotencyKey },
      body: {
        amount: req.amountMinor,
        currency: req.currency.toLowerCase(),
        confirm: true,
        metadata: { merchant_reference: req.merchantReference, order_id: req.orderId },
      },
    });
    if (answer.status === 200) return this.payment(answer, operation);
    const error = objectOf(answer.body?.error);
    const type = typeof error?.type === 'string' ? error.type : null;
    if (answer.status === 402 && type === 'card_error') {
      throw new ProviderDeclined(String(error?.decline_code ?? error?.code ?? 'card_declined'));
    }
    if (answer.status === 400 && type === 'invalid_request_error') {
      throw new ProviderDeclined(`invalid_request: ${String(error?.message ?? '')}`);
    }
    throw this.apiError(operation, answer);
  }

  async getPaymentByReference(merchantReference: string): Promise<ProviderPayment | null> {
    const operation = 'GET /v1/payment_intents/search';
    const escaped = merchantReference.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
    const query = encodeURIComponent(`metadata['merchant_reference']:'${escaped}'`);
    const answer = await this.call('GET', `/v1/payment_intents/search?query=${query}`);
    if (answer.status !== 200) throw this.apiError(operation, answer);
    const data = answer.body?.data;
    if (!Array.isArray(data)) throw this.apiError(operation, answer);
    const intents = data.map(objectOf).filter((intent): intent is Json => intent !== null);
    const chosen = intents.find((intent) => intent.status === 'succeeded') ?? intents.at(-1);
    return chosen === undefined ? null : this.payment({ status: 200, body: chosen }, operation);
  }

  async cancel(paymentId: string): Promise<ProviderPayment> {
    const path = `/v1/payment_intents/${encodeURIComponent(paymentId)}/cancel`;
    const operation = `POST ${path}`;
    const answer = await this.call('POST', path, { body: {} });
    if (answer.status === 200) return this.payment(answer, operation);
    const error = objectOf(answer.body?.error);
    const intent = objectOf(error?.payment_intent);
    if (answer.status === 400 && error?.code === 'payment_intent_unexpected_state' && intent !== null) {
      return this.payment({ status: 200, body: intent }, operation);
    }
    throw this.apiError(operation, answer);
  }

  /** Closes the client's connection pool. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private payment(answer: Answer, operation: string): ProviderPayment {
    const intent = answer.body;
    const metadata = objectOf(intent?.metadata);
    const nextAction = objectOf(intent?.next_action);
    const redirect = objectOf(nextAction?.redirect_to_url);
    if (
      intent === null ||
      typeof intent.id !== 'string' ||
      typeof intent.amount !== 'number' ||
      typeof intent.currency !== 'string' ||
      typeof metadata?.merchant_reference !== 'string'
    ) {
      throw new SandboxClientError('SANDBOX_API_ERROR', operation, 'answer is not a PaymentIntent', {
        status: answer.status,
      });
    }
    return Object.freeze({
      paymentId: intent.id,
      merchantReference: metadata.merchant_reference,
      status: statusOf(intent),
      amountMinor: intent.amount,
      currency: intent.currency.toUpperCase(),
      actionUrl: typeof redirect?.url === 'string' ? redirect.url : null,
    });
  }

  private apiError(operation: string, answer: Answer): SandboxClientError {
    const error = objectOf(answer.body?.error);
    const type = typeof error?.type === 'string' ? error.type : null;
    const message = typeof error?.message === 'string' ? error.message : 'unexpected answer';
    return new SandboxClientError('SANDBOX_API_ERROR', operation, `${answer.status} ${type ?? ''} ${message}`, {
      status: answer.status,
      errorType: type,
    });
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    init: { headers?: Record<string, string>; body?: Json } = {},
  ): Promise<Answer> {
    const operation = `${method} ${path.split('?')[0]}`;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    try {
      const response = await request(`${this.baseUrl}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${this.apiKey}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
          ...init.headers,
        },
        body: init.body === undefined ? undefined : encodeStripeForm(init.body),
        dispatcher: this.agent,
        signal: controller.signal,
      });
      const text = await response.body.text();
      let body: Json | null = null;
      try {
        body = text === '' ? null : objectOf(JSON.parse(text));
      } catch {
        body = null;
      }
      return { status: response.statusCode, body };
    } catch (cause) {
      if (timedOut) {
        throw new SandboxClientError('SANDBOX_TIMEOUT', operation, `no answer within ${this.timeoutMs} ms`, {
          cause,
        });
      }
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new SandboxClientError('SANDBOX_CONNECTION_LOST', operation, `connection lost: ${detail}`, { cause });
    } finally {
      clearTimeout(timer);
    }
  }
}

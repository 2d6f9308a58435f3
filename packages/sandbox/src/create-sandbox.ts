import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { CONTROL_CONTEXT } from './action-context.js';
import { type ApiDeps, assignRequestId, type RequestRecord, requestIdOf, send } from './api-request.js';
import { registerControlRoutes } from './control-routes.js';
import { FaultLedger } from './faults/fault-ledger.js';
import { FaultRules } from './faults/fault-rules.js';
import { HeaderFaultKeys } from './faults/header-fault-keys.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import {
  checkPaymentPlan,
  DEFAULT_PAYMENT_PLAN,
  type PaymentPlan,
  type ResolvedPaymentPlan,
  resolvePaymentPlan,
} from './payment-plan.js';
import type { ChargeLedger, OrderLedger, PlanMatch, SandboxControls, SandboxLogFilter } from './sandbox-controls.js';
import { checkWebhookUrl, resolveSandboxOptions, type SandboxOptions } from './sandbox-options.js';
import type { SandboxPayment } from './sandbox-payment.js';
import { StripeEngine } from './stripe-engine.js';
import { stripeId } from './stripe-objects.js';
import { registerStripeRoutes } from './stripe-routes.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import type { RegisteredEndpoint } from './webhook-endpoints.js';
import { checkSigning, newSigningSecret, type SandboxSigning } from './webhook-signer.js';
import { checkApiKey } from './wire/api-key.js';
import { checkControlContentType, checkHost } from './wire/control-guard.js';
import { StripeApiError, unknownRoute } from './wire/stripe-api-error.js';
import { FORM_LIMITS } from './wire/stripe-form.js';

/** A running sandbox provider. */
export interface Sandbox {
  /** Base URL, `http://127.0.0.1:<port>`; the API lives under `/v1`, the controls under `/_sandbox`. */
  readonly url: string;
  /** The TCP port (for `new Stripe(key, { host: '127.0.0.1', port, protocol: 'http' })`). */
  readonly port: number;
  readonly controls: SandboxControls;
  /** Stops deliveries and hung requests, then the server. Idempotent. */
  close(): Promise<void>;
}

interface PlanRule {
  readonly match: PlanMatch;
  readonly plan: PaymentPlan;
  left: number;
}

function matches(filter: SandboxLogFilter | undefined, item: { merchantReference: string | null; paymentId: string }) {
  if (filter === undefined) return true;
  if (filter.merchantReference !== undefined && filter.merchantReference !== item.merchantReference) return false;
  return filter.paymentId === undefined || filter.paymentId === item.paymentId;
}

/**
 * Starts a Stripe-compatible payment provider simulator on 127.0.0.1 (docs/design.md §8) that the official `stripe` SDK
 * drives unchanged (`new Stripe('sk_test_…', { host: '127.0.0.1', port, protocol: 'http' })`):
 * - Stripe's wire format: form bodies in bracket notation (JSON also taken), secret-key auth (Bearer or Basic,
 *   any `sk_test_…`), `Request-Id` on every answer, Stripe's error shape and statuses on every error (unknown
 *   routes and bad bodies included);
 * - stateful PaymentIntents (create/confirm/capture/cancel/update/list/search), Refunds, Charges, Events and
 *   WebhookEndpoints, with Stripe's state transitions, test cards and per-currency amount rules;
 * - Stripe's idempotency keys on every POST (replay with `Idempotent-Replayed: true`, 400 on other parameters,
 *   409 while in flight, kept 24 h of sandbox clock);
 * - signed webhooks (`Stripe-Signature` with secret rotation, or Standard Webhooks) to the default endpoint and
 *   to registered ones, delivered at least once on a retry schedule (compressible with `timeScale`);
 * - faults per request (`Payonce-Fault` header; the older JSON `Sandbox-Plan` header), per rule (method, path,
 *   probability with a seed, count), per order (`controls.plan`) or per run (`defaults`), each one recorded in
 *   the ledger with the request id;
 * - `controls` programmatically and under `/_sandbox/…` over HTTP (`GET /_sandbox/ledger`).
 * @throws {InvalidOption} bad options.
 * @see docs/design.md §8; docs/sandbox.md; https://docs.stripe.com/api.
 * @example const sandbox = await createSandbox({ webhookUrl, timeScale: 0.001 }); sandbox.controls.charges(ref);
 */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const resolved = resolveSandboxOptions(options);
  let webhookUrl = resolved.webhookUrl;
  let signing: SandboxSigning = resolved.signing;
  let defaults: ResolvedPaymentPlan = resolved.defaults;
  let clockOffsetMs = 0;
  const nowMs = () => Date.now() + clockOffsetMs;
  const plans: PlanRule[] = [];
  const endpoints = new Map<string, RegisteredEndpoint>();
  const requests: RequestRecord[] = [];
  const faults = new FaultLedger(nowMs);
  const rules = new FaultRules(resolved.seed);
  for (const rule of resolved.faultRules) rules.add(rule);
  let createRequests = 0;
  let baseUrl = '';

  const dispatcher = new WebhookDispatcher({
    scheduleMs: resolved.scheduleMs,
    timeScale: resolved.timeScale,
    deliveryTimeoutMs: resolved.deliveryTimeoutMs,
    nowMs,
  });
  const engine = new StripeEngine({
    baseUrl: () => baseUrl,
    nowMs,
    timeScale: resolved.timeScale,
    dispatcher,
    faults,
    defaultEndpoint: () => ({ url: webhookUrl, signing, enabledEvents: resolved.webhookEvents }),
    endpoints: () => [...endpoints.values()],
    defaults: () => defaults,
  });
  for (const endpoint of resolved.endpoints) {
    const id = stripeId('we');
    endpoints.set(id, {
      id,
      ...endpoint,
      status: 'enabled',
      description: 'registered at start',
      metadata: {},
      createdSec: Math.floor(nowMs() / 1000),
      apiVersion: null,
    });
  }

  function takePlan(orderId: string | null, merchantReference: string | null): PaymentPlan | undefined {
    const index = plans.findIndex(
      ({ match }) =>
        (match.orderId === undefined || match.orderId === orderId) &&
        (match.merchantReference === undefined || match.merchantReference === merchantReference),
    );
    const rule = plans[index];
    if (rule === undefined) return undefined;
    rule.left -= 1;
    if (rule.left <= 0) plans.splice(index, 1);
    return rule.plan;
  }

  const paymentsOf = (reference: string) =>
    engine.paymentIdsOf(reference).flatMap((id) => (engine.payments.has(id) ? [engine.payment(id)] : []));
  const succeeded = (ofPayments: readonly SandboxPayment[]) => {
    const ids = new Set(ofPayments.map((p) => p.id));
    return [...engine.charges.values()].filter((c) => ids.has(c.paymentIntentId) && c.status === 'succeeded');
  };
  const succeededCharges = (ofPayments: readonly SandboxPayment[]) => succeeded(ofPayments).length;
  const refundCount = (ofPayments: readonly SandboxPayment[]) => {
    const ids = new Set(ofPayments.map((p) => p.id));
    return [...engine.refunds.values()].filter((r) => ids.has(r.paymentIntentId)).length;
  };

  function ledger(merchantReference: string): ChargeLedger {
    const ofReference = paymentsOf(merchantReference);
    return Object.freeze({
      merchantReference,
      chargeCount: succeededCharges(ofReference),
      refundCount: refundCount(ofReference),
      paymentIds: Object.freeze(ofReference.map((p) => p.id)),
    });
  }

  function orderLedger(orderId: string): OrderLedger {
    const ofOrder = [...engine.payments.values()].filter((p) => p.orderId === orderId);
    return Object.freeze({
      orderId,
      chargeCount: succeededCharges(ofOrder),
      refundCount: refundCount(ofOrder),
      paymentIds: Object.freeze(ofOrder.map((p) => p.id)),
      merchantReferences: Object.freeze([
        ...new Set(ofOrder.flatMap((p) => (p.merchantReference === null ? [] : [p.merchantReference]))),
      ]),
      charges: Object.freeze(
        succeeded(ofOrder).map((c) =>
          Object.freeze({
            paymentId: c.paymentIntentId,
            chargeId: c.id,
            amountMinor: c.captured ? c.amountCaptured : c.amountMinor,
            currency: c.currency,
          }),
        ),
      ),
    });
  }

  const known = (paymentId: string) => {
    if (!engine.payments.has(paymentId)) throw new Error(`sandbox: no payment ${paymentId}`);
  };

  const controls: SandboxControls = {
    setWebhookUrl(url) {
      webhookUrl = url === null ? null : checkWebhookUrl(url);
    },
    signing: () => signing,
    setSigning({ scheme, secret, previousSecrets }) {
      signing = checkSigning({ scheme, secret: secret ?? newSigningSecret(scheme), previousSecrets });
      return signing;
    },
    setDefaults(plan) {
      defaults = resolvePaymentPlan(DEFAULT_PAYMENT_PLAN, checkPaymentPlan(plan));
    },
    plan(match, plan, times = 1) {
      if (!Number.isSafeInteger(times) || times < 1 || times > 1000) throw new InvalidOption('times', 'must be 1…1000');
      plans.push({
        match: Object.freeze({ orderId: match.orderId, merchantReference: match.merchantReference }),
        plan: checkPaymentPlan(plan),
        left: times,
      });
    },
    ledger,
    orderLedger,
    charges: (merchantReference) => ledger(merchantReference).chargeCount,
    createRequests: () => createRequests,
    payment: (paymentId) => engine.payments.get(paymentId),
    payments: () => Object.freeze([...engine.payments.values()]),
    async settle(paymentId, outcome) {
      known(paymentId);
      return engine.settle(paymentId, outcome, CONTROL_CONTEXT);
    },
    async refund(paymentId) {
      known(paymentId);
      return engine.refundRest(paymentId);
    },
    events: (filter) =>
      engine.events.filter((e) => matches(filter, e) && (filter?.eventId === undefined || filter.eventId === e.id)),
    deliveries: (filter) =>
      dispatcher.log.filter(
        (d) =>
          matches(filter, d) &&
          (filter?.eventId === undefined || filter.eventId === d.eventId || filter.eventId === d.sourceEventId),
      ),
    async resend(eventId, copies, parallel = 1) {
      const event = engine.events.find((e) => e.id === eventId);
      if (event === undefined) throw new Error(`sandbox: no event ${eventId}`);
      for (const [name, n] of [
        ['copies', copies],
        ['parallel', parallel],
      ] as const) {
        if (!Number.isSafeInteger(n) || n < 1 || n > 50) throw new InvalidOption(name, 'must be 1…50');
      }
      return dispatcher.resend(engine.deliveriesOf(event), copies, parallel);
    },
    idle: (timeoutMs = 10_000) => dispatcher.idle(timeoutMs),
    ledgerSnapshot: () =>
      Object.freeze({
        payments: [...engine.payments.values()],
        charges: [...engine.charges.values()],
        refunds: [...engine.refunds.values()],
        events: engine.events.map((e) => ({ id: e.id, type: e.type, paymentId: e.paymentId, requestId: e.requestId })),
        deliveries: [...dispatcher.log],
        faults: faults.list(),
        requests: [...requests],
      }),
    faults: (requestId) => faults.list(requestId),
    addFaultRule: (rule) => rules.add(rule),
    clearFaultRules(seed) {
      rules.clear();
      if (seed !== undefined) rules.reseed(seed);
    },
    reseedFaults(seed) {
      if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffffffff) {
        throw new InvalidOption('seed', 'must be an integer from 0 to 4294967295');
      }
      rules.reseed(seed);
    },
    endpoints: () => [...endpoints.values()],
    advanceClock(ms) {
      if (!Number.isSafeInteger(ms) || ms < 0) throw new InvalidOption('advanceClock', 'takes whole ms ≥ 0');
      clockOffsetMs += ms;
    },
    nowMs,
  };

  const app = Fastify({ forceCloseConnections: true, bodyLimit: FORM_LIMITS.bodyBytes });
  prepareWire(app, resolved);
  const deps: ApiDeps = {
    keys: new IdempotencyKeys(nowMs),
    rules,
    headerFaultKeys: new HeaderFaultKeys(),
    faults,
    dispatcher,
    defaults: () => defaults,
    nowMs,
    requests,
  };
  registerStripeRoutes(app, {
    ...deps,
    engine,
    endpoints,
    baseUrl: () => baseUrl,
    takePlan,
    onCreateRequest: () => {
      createRequests += 1;
    },
  });
  app.get<{ Params: { id: string } }>('/pay/:id', async (request, reply) =>
    reply.type('text/plain; charset=utf-8').send(`sandbox payment page for ${request.params.id}\n`),
  );
  registerControlRoutes(app, controls, { serveSecrets: resolved.serveSecrets });

  const address = await app.listen({ host: '127.0.0.1', port: resolved.port });
  baseUrl = address.replace('localhost', '127.0.0.1');
  let closed: Promise<void> | null = null;
  return {
    url: baseUrl,
    port: Number(new URL(baseUrl).port),
    controls,
    close() {
      closed ??= (async () => {
        await dispatcher.close();
        await app.close();
      })();
      return closed;
    },
  };
}

/**
 * Everything about the wire that is not a route: bodies read as text (parsed by the API layer, so a bad one is a
 * Stripe-shaped 400), a `Request-Id` and the `Stripe-Version` echoed on every answer, the `Host` check (403), the
 * JSON-only check of `POST /_sandbox/…` (415), the API key check on `/v1`, and Stripe-shaped answers for unknown
 * routes and framework errors (too large a body, a broken request).
 */
function prepareWire(
  app: FastifyInstance,
  { requireApiKey, allowedHosts }: { requireApiKey: boolean; allowedHosts: readonly string[] },
): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addHook('onRequest', async (request, reply) => {
    const id = stripeId('req');
    assignRequestId(request, id);
    reply.header('request-id', id);
    const version = request.headers['stripe-version'];
    if (typeof version === 'string' && /^[\w.-]{1,40}$/.test(version)) reply.header('stripe-version', version);
    try {
      checkHost(request.headers.host, allowedHosts);
      if (request.url.startsWith('/_sandbox/'))
        checkControlContentType(request.method, request.headers['content-type']);
    } catch (error) {
      const refused = error as StripeApiError;
      return send(reply, refused.status, JSON.stringify(refused.body()), null, null);
    }
    if (requireApiKey && request.url.startsWith('/v1/')) {
      const auth = request.headers.authorization;
      try {
        checkApiKey(typeof auth === 'string' ? auth : undefined);
      } catch (error) {
        const stripe = error as StripeApiError;
        return send(reply, stripe.status, JSON.stringify(stripe.body()), null, null);
      }
    }
    return undefined;
  });
  app.setNotFoundHandler((request, reply) => {
    const error = unknownRoute(request.method, (request.raw.url ?? '').split('?')[0] ?? '');
    return send(reply, error.status, JSON.stringify(error.body()), null, null);
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof StripeApiError) return send(reply, error.status, JSON.stringify(error.body()), null, null);
    const clientError =
      error instanceof InvalidOption || (typeof error.statusCode === 'number' && error.statusCode < 500);
    const message =
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? `Request body too large: at most ${FORM_LIMITS.bodyBytes} bytes.`
        : clientError
          ? `Invalid request: ${error.message}`
          : 'An error occurred with our API.';
    const stripe = new StripeApiError(
      clientError ? 400 : 500,
      clientError ? 'invalid_request_error' : 'api_error',
      message,
    );
    if (!clientError) request.log.error({ err: error, requestId: requestIdOf(request) }, 'sandbox: unexpected error');
    return send(reply, stripe.status, JSON.stringify(stripe.body()), null, null);
  });
}

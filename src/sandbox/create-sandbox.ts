import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { InvalidOption } from '../core/errors.js';
import { canonicalJson } from '../http/canonical-json.js';
import type { DeliveryRecord } from './delivery-record.js';
import {
  checkPaymentPlan,
  DEFAULT_PAYMENT_PLAN,
  type PaymentPlan,
  type ResolvedPaymentPlan,
  resolvePaymentPlan,
} from './payment-plan.js';
import type { ChargeLedger, OrderLedger, PlanMatch, SandboxControls, SandboxLogFilter } from './sandbox-controls.js';
import { type EventVariants, NO_VARIANTS, type SandboxEvent } from './sandbox-event.js';
import { checkWebhookUrl, resolveSandboxOptions, type SandboxOptions } from './sandbox-options.js';
import type { SandboxPayment } from './sandbox-payment.js';
import {
  chargeObject,
  declineError,
  type JsonObject,
  paymentIntentObject,
  standardWebhooksEvent,
  stripeEvent,
  stripeId,
} from './stripe-objects.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { checkSigning, newSigningSecret, type SandboxSigning } from './webhook-signer.js';

/** A running sandbox provider. */
export interface Sandbox {
  /** Base URL, `http://127.0.0.1:<port>`; the API lives under `/v1`, the controls under `/_sandbox`. */
  readonly url: string;
  readonly controls: SandboxControls;
  /** Stops deliveries and hung requests, then the server. Idempotent. */
  close(): Promise<void>;
}

/** A stored create answer, replayed for the same idempotency key. */
interface StoredAnswer {
  readonly fingerprint: string;
  readonly status: number;
  readonly body: string;
  readonly requestId: string;
}

interface PlanRule {
  readonly match: PlanMatch;
  readonly plan: PaymentPlan;
  left: number;
}

const MAX_AMOUNT = 99_999_999;
const JSON_TYPE = 'application/json; charset=utf-8';

function stripeError(type: string, message: string, extra: JsonObject = {}): string {
  return JSON.stringify({ error: { type, message, ...extra } });
}

function matches(filter: SandboxLogFilter | undefined, item: { merchantReference: string; paymentId: string }) {
  if (filter === undefined) return true;
  if (filter.merchantReference !== undefined && filter.merchantReference !== item.merchantReference) return false;
  return filter.paymentId === undefined || filter.paymentId === item.paymentId;
}

/** Reads Stripe search syntax `metadata['merchant_reference']:'value'` (backslash escapes `\'` and `\\`). */
function referenceFromQuery(query: string): string | null {
  const match = /^metadata\['merchant_reference'\]:'((?:[^'\\]|\\.)*)'$/.exec(query.trim());
  return match?.[1] === undefined ? null : match[1].replace(/\\(.)/g, '$1');
}

/** The `Sandbox-Plan` header: a JSON {@link PaymentPlan}. @throws {InvalidOption} not JSON or not a plan. */
function planFromHeader(header: string): PaymentPlan {
  let value: unknown;
  try {
    value = JSON.parse(header);
  } catch {
    throw new InvalidOption('Sandbox-Plan', 'must be a JSON object');
  }
  return checkPaymentPlan(value, 'Sandbox-Plan');
}

function stringParam(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * Starts a payment provider simulator on 127.0.0.1 (docs/design.md §8). It speaks a Stripe-shaped JSON API:
 * - `POST /v1/payment_intents` `{ amount, currency, metadata: { merchant_reference, order_id? } }` with an
 *   optional `Idempotency-Key`: same key + same body → the stored answer again with `Idempotent-Replayed: true`;
 *   same key + another body → `400 idempotency_error`; same key while the first request runs → `409
 *   idempotency_error`. Amounts are integer minor units (1…99 999 999), `currency` three letters. A decline
 *   answers `402 card_error` (stored and replayed like a success).
 * - `GET /v1/payment_intents/search?query=metadata['merchant_reference']:'…'`, `GET /v1/payment_intents/:id`,
 *   `POST /v1/payment_intents/:id/cancel` (`400 payment_intent_unexpected_state` with the intent when it cannot
 *   be cancelled any more).
 * - Webhooks to the configured target, signed with Stripe's or the Standard Webhooks scheme, delivered at least
 *   once on a retry schedule; Stripe event envelopes or Standard Webhooks `{ type, timestamp, data }` around the
 *   PaymentIntent or Charge object.
 * - Fault knobs per run (`defaults`), per matching request (`controls.plan`) or per request (a JSON
 *   `Sandbox-Plan` header): see {@link PaymentPlan}.
 * - `controls` programmatically and under `/_sandbox/…` over HTTP; the charge ledger proves "charged at most
 *   once" per merchant reference.
 * @throws {InvalidOption} bad options.
 * @see docs/design.md §8; docs/sandbox.md; https://docs.stripe.com/api/idempotent_requests.
 * @example const sandbox = await createSandbox({ webhookUrl, timeScale: 0.001 }); sandbox.controls.charges(ref);
 */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const resolved = resolveSandboxOptions(options);
  let webhookUrl = resolved.webhookUrl;
  let signing: SandboxSigning = resolved.signing;
  let defaults: ResolvedPaymentPlan = resolved.defaults;
  const rules: PlanRule[] = [];
  const payments = new Map<string, SandboxPayment>();
  const byReference = new Map<string, string[]>();
  const charges = new Map<string, number>();
  const refunds = new Map<string, number>();
  const answers = new Map<string, StoredAnswer>();
  const inFlight = new Set<string>();
  const events: SandboxEvent[] = [];
  let createRequests = 0;
  let baseUrl = '';

  const dispatcher = new WebhookDispatcher({
    target: () => webhookUrl,
    scheduleMs: resolved.scheduleMs,
    timeScale: resolved.timeScale,
    deliveryTimeoutMs: resolved.deliveryTimeoutMs,
    nowMs: () => Date.now(),
  });

  function takePlan(orderId: string | null, merchantReference: string | null): PaymentPlan | undefined {
    const index = rules.findIndex(
      ({ match }) =>
        (match.orderId === undefined || match.orderId === orderId) &&
        (match.merchantReference === undefined || match.merchantReference === merchantReference),
    );
    const rule = rules[index];
    if (rule === undefined) return undefined;
    rule.left -= 1;
    if (rule.left <= 0) rules.splice(index, 1);
    return rule.plan;
  }

  function update(payment: SandboxPayment, change: Partial<SandboxPayment>): SandboxPayment {
    const next = Object.freeze({ ...payment, ...change });
    payments.set(payment.id, next);
    return next;
  }

  function eventBody(id: string, type: string, object: JsonObject, payment: SandboxPayment, nowMs: number): string {
    if (signing.scheme === 'standard-webhooks') return JSON.stringify(standardWebhooksEvent(type, nowMs, object));
    return JSON.stringify(
      stripeEvent(id, type, object, Math.floor(nowMs / 1000), {
        id: payment.requestId,
        idempotencyKey: payment.idempotencyKey,
      }),
    );
  }

  /** A genuine event about `payment` (current signing) and the injected copies its plan asks for. */
  function makeEvent(
    payment: SandboxPayment,
    type: string,
    refundId: string | null = null,
  ): { event: SandboxEvent; variants: EventVariants } {
    const nowMs = Date.now();
    const objectOf = (p: SandboxPayment) =>
      type.startsWith('charge.') ? chargeObject(p, refundId) : paymentIntentObject(p, baseUrl);
    const newId = () => (signing.scheme === 'stripe' ? stripeId('evt') : stripeId('msg'));
    const id = newId();
    const event: SandboxEvent = Object.freeze({
      id,
      type,
      signing,
      paymentId: payment.id,
      merchantReference: payment.merchantReference,
      amountMinor: payment.amountMinor,
      currency: payment.currency,
      createdAtMs: nowMs,
      body: eventBody(id, type, objectOf(payment), payment, nowMs),
    });
    events.push(event);
    const { plan } = payment;
    if (!plan.forgedSignature && plan.tamperedAmount === 'none') return { event, variants: NO_VARIANTS };
    const doubled = { ...payment, amountMinor: payment.amountMinor * 2 };
    const resignedId = newId();
    const variants: EventVariants = {
      forged: plan.forgedSignature,
      inTransitBody:
        plan.tamperedAmount === 'in-transit' ? eventBody(id, type, objectOf(doubled), doubled, nowMs) : null,
      resigned:
        plan.tamperedAmount === 'resigned'
          ? { id: resignedId, body: eventBody(resignedId, type, objectOf(doubled), doubled, nowMs) }
          : null,
    };
    return { event, variants };
  }

  function deliver(payment: SandboxPayment, batch: { event: SandboxEvent; variants: EventVariants }[]) {
    const ordered = payment.plan.reorder ? [...batch].reverse() : batch;
    return dispatcher.track(dispatcher.deliverInOrder(ordered, payment.plan));
  }

  async function settle(paymentId: string, outcome: 'succeed' | 'decline'): Promise<SandboxPayment> {
    const payment = payments.get(paymentId);
    if (payment === undefined) throw new Error(`sandbox: no payment ${paymentId}`);
    if (payment.status !== 'processing' && payment.status !== 'requires_action') return payment;
    if (outcome === 'decline') {
      const failed = update(payment, { status: 'failed' });
      await deliver(failed, [makeEvent(failed, 'payment_intent.payment_failed')]);
      return failed;
    }
    let paid = update(payment, { status: 'succeeded' });
    charges.set(paid.merchantReference, (charges.get(paid.merchantReference) ?? 0) + 1);
    const batch = [makeEvent(paid, 'payment_intent.succeeded')];
    if (paid.plan.twoEventIds) batch.push(makeEvent(paid, 'charge.succeeded'));
    if (paid.plan.refundAfterSettle) {
      paid = update(paid, { refundedMinor: paid.amountMinor });
      refunds.set(paid.merchantReference, (refunds.get(paid.merchantReference) ?? 0) + 1);
      batch.push(makeEvent(paid, 'charge.refunded', stripeId('re')));
    }
    await deliver(paid, batch);
    return payments.get(paid.id) ?? paid;
  }

  async function refund(paymentId: string): Promise<SandboxPayment> {
    const payment = payments.get(paymentId);
    if (payment === undefined) throw new Error(`sandbox: no payment ${paymentId}`);
    if (payment.status !== 'succeeded' || payment.refundedMinor > 0) return payment;
    const refunded = update(payment, { refundedMinor: payment.amountMinor });
    refunds.set(refunded.merchantReference, (refunds.get(refunded.merchantReference) ?? 0) + 1);
    await deliver(refunded, [makeEvent(refunded, 'charge.refunded', stripeId('re'))]);
    return refunded;
  }

  function ledger(merchantReference: string): ChargeLedger {
    return Object.freeze({
      merchantReference,
      charges: charges.get(merchantReference) ?? 0,
      refunds: refunds.get(merchantReference) ?? 0,
      paymentIds: Object.freeze([...(byReference.get(merchantReference) ?? [])]),
    });
  }

  function orderLedger(orderId: string): OrderLedger {
    const ofOrder = [...payments.values()].filter((p) => p.orderId === orderId);
    return Object.freeze({
      orderId,
      charges: ofOrder.filter((p) => p.status === 'succeeded').length,
      refunds: ofOrder.filter((p) => p.refundedMinor > 0).length,
      paymentIds: Object.freeze(ofOrder.map((p) => p.id)),
      merchantReferences: Object.freeze([...new Set(ofOrder.map((p) => p.merchantReference))]),
    });
  }

  const controls: SandboxControls = {
    setWebhookUrl(url) {
      webhookUrl = url === null ? null : checkWebhookUrl(url);
    },
    signing: () => signing,
    setSigning({ scheme, secret }) {
      signing = checkSigning({ scheme, secret: secret ?? newSigningSecret(scheme) });
      return signing;
    },
    setDefaults(plan) {
      defaults = resolvePaymentPlan(DEFAULT_PAYMENT_PLAN, checkPaymentPlan(plan));
    },
    plan(match, plan, times = 1) {
      if (!Number.isSafeInteger(times) || times < 1 || times > 1000) throw new InvalidOption('times', 'must be 1…1000');
      rules.push({
        match: Object.freeze({ orderId: match.orderId, merchantReference: match.merchantReference }),
        plan: checkPaymentPlan(plan),
        left: times,
      });
    },
    ledger,
    orderLedger,
    charges: (merchantReference) => ledger(merchantReference).charges,
    createRequests: () => createRequests,
    payment: (paymentId) => payments.get(paymentId),
    payments: () => Object.freeze([...payments.values()]),
    settle,
    refund,
    events: (filter) =>
      events.filter((e) => matches(filter, e) && (filter?.eventId === undefined || filter.eventId === e.id)),
    deliveries: (filter) =>
      dispatcher.log.filter(
        (d) =>
          matches(filter, d) &&
          (filter?.eventId === undefined || filter.eventId === d.eventId || filter.eventId === d.sourceEventId),
      ),
    async resend(eventId, copies, parallel = 1) {
      const event = events.find((e) => e.id === eventId);
      if (event === undefined) throw new Error(`sandbox: no event ${eventId}`);
      for (const [name, n] of [
        ['copies', copies],
        ['parallel', parallel],
      ] as const) {
        if (!Number.isSafeInteger(n) || n < 1 || n > 50) throw new InvalidOption(name, 'must be 1…50');
      }
      return dispatcher.resend(event, copies, parallel);
    },
    idle: (timeoutMs = 10_000) => dispatcher.idle(timeoutMs),
  };

  const app = Fastify({ forceCloseConnections: true, bodyLimit: 65_536 });

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 500;
    const type = error instanceof InvalidOption || status < 500 ? 'invalid_request_error' : 'api_error';
    reply
      .code(error instanceof InvalidOption ? 400 : status)
      .type(JSON_TYPE)
      .send(stripeError(type, error.message));
  });

  /** Destroys the connection without an answer. */
  function drop(request: FastifyRequest, reply: FastifyReply): void {
    reply.hijack();
    request.raw.socket.destroy();
  }

  async function hangThenDrop(request: FastifyRequest, reply: FastifyReply, ms: number): Promise<void> {
    reply.hijack();
    await dispatcher.wait(ms);
    request.raw.socket.destroy();
  }

  /** Stripe's 404 `resource_missing` for an unknown PaymentIntent id. */
  function noSuchPaymentIntent(reply: FastifyReply, id: string, requestId: string) {
    const body = stripeError('invalid_request_error', `No such payment_intent: '${id}'`, { code: 'resource_missing' });
    return send(reply, 404, body, requestId, null);
  }

  function send(reply: FastifyReply, status: number, body: string, requestId: string, replayOf: string | null) {
    reply.code(status).type(JSON_TYPE).header('request-id', requestId);
    if (replayOf !== null) reply.header('idempotent-replayed', 'true').header('original-request', replayOf);
    return reply.send(body);
  }

  /** Applies the response fault of `plan` to an answer that is already committed. */
  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    plan: ResolvedPaymentPlan,
    stored: StoredAnswer,
    requestId: string,
    replay: boolean,
  ) {
    switch (plan.responseFault) {
      case 'drop-after-commit':
        return drop(request, reply);
      case 'gateway-timeout-after-commit':
        return reply.code(504).header('request-id', requestId).send('');
      case 'hang-after-commit':
      case 'hang-before-commit':
        return hangThenDrop(request, reply, plan.hangMs);
      default:
        return send(reply, stored.status, stored.body, requestId, replay ? stored.requestId : null);
    }
  }

  app.post('/v1/payment_intents', async function createPaymentIntent(request, reply) {
    createRequests += 1;
    const requestId = stripeId('req');
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as JsonObject;
    const metadata = (typeof body.metadata === 'object' && body.metadata !== null ? body.metadata : {}) as JsonObject;
    const merchantReference = stringParam(metadata.merchant_reference);
    const orderId = stringParam(metadata.order_id);
    const header = request.headers['sandbox-plan'];
    const headerPlan = typeof header === 'string' ? planFromHeader(header) : undefined;
    const plan = resolvePaymentPlan(defaults, headerPlan ?? takePlan(orderId, merchantReference));
    await dispatcher.wait(plan.responseDelayMs);

    const { amount, currency } = body;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1 || amount > MAX_AMOUNT) {
      return send(
        reply,
        400,
        stripeError('invalid_request_error', `amount must be an integer from 1 to ${MAX_AMOUNT} (minor units)`, {
          code: 'parameter_invalid_integer',
          param: 'amount',
        }),
        requestId,
        null,
      );
    }
    if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency)) {
      return send(
        reply,
        400,
        stripeError('invalid_request_error', 'currency must be a three-letter ISO code', {
          code: 'parameter_invalid_string',
          param: 'currency',
        }),
        requestId,
        null,
      );
    }
    if (merchantReference === null) {
      return send(
        reply,
        400,
        stripeError('invalid_request_error', 'metadata[merchant_reference] is required by the sandbox', {
          code: 'parameter_missing',
          param: 'metadata[merchant_reference]',
        }),
        requestId,
        null,
      );
    }

    const keyHeader = request.headers['idempotency-key'];
    const key = typeof keyHeader === 'string' && keyHeader !== '' ? keyHeader : null;
    const fingerprint = canonicalJson(JSON.stringify(body)) ?? JSON.stringify(body);
    if (key !== null) {
      if (inFlight.has(key)) {
        return send(
          reply,
          409,
          stripeError(
            'idempotency_error',
            'There is currently another in-progress request using this Idempotent Key (that probably means you ' +
              'submitted twice, and the other request is still going through).',
          ),
          requestId,
          null,
        );
      }
      const stored = answers.get(key);
      if (stored !== undefined && stored.fingerprint !== fingerprint) {
        return send(
          reply,
          400,
          stripeError(
            'idempotency_error',
            `Keys for idempotent requests can only be used with the same parameters they were first used with. ` +
              `Try using a key other than '${key}' if you meant to execute a different request.`,
          ),
          requestId,
          null,
        );
      }
      if (stored !== undefined) return answer(request, reply, plan, stored, requestId, true);
      inFlight.add(key);
    }
    try {
      if (plan.responseFault === 'hang-before-commit') return await hangThenDrop(request, reply, plan.hangMs);
      const nowMs = Date.now();
      let payment: SandboxPayment = Object.freeze({
        id: stripeId('pi'),
        chargeId: stripeId('ch'),
        merchantReference,
        orderId,
        amountMinor: amount,
        currency: currency.toUpperCase(),
        idempotencyKey: key,
        requestId,
        createdSec: Math.floor(nowMs / 1000),
        status: plan.outcome === 'requires_action' ? 'requires_action' : 'processing',
        refundedMinor: 0,
        canceledSec: null,
        plan,
      });
      payments.set(payment.id, payment);
      byReference.set(merchantReference, [...(byReference.get(merchantReference) ?? []), payment.id]);
      if (plan.outcome === 'decline' || (plan.outcome === 'succeed' && plan.webhookBeforeResponse)) {
        payment = await settle(payment.id, plan.outcome === 'decline' ? 'decline' : 'succeed');
      } else if (plan.outcome === 'succeed') {
        const id = payment.id;
        dispatcher.track(
          dispatcher
            .wait(Math.round(plan.settleAfterMs * resolved.timeScale))
            .then(() => (dispatcher.closed ? undefined : settle(id, 'succeed'))),
        );
      }
      const intent = paymentIntentObject(payment, baseUrl);
      const stored: StoredAnswer =
        payment.status === 'failed'
          ? {
              fingerprint,
              status: 402,
              body: JSON.stringify({ error: { ...declineError(), payment_intent: intent } }),
              requestId,
            }
          : { fingerprint, status: 200, body: JSON.stringify(intent), requestId };
      if (key !== null) {
        answers.set(key, stored);
        inFlight.delete(key);
      }
      return await answer(request, reply, plan, stored, requestId, false);
    } finally {
      if (key !== null) inFlight.delete(key);
    }
  });

  app.get<{ Querystring: { query?: string } }>('/v1/payment_intents/search', async (request, reply) => {
    const requestId = stripeId('req');
    await dispatcher.wait(defaults.responseDelayMs);
    const reference = referenceFromQuery(request.query.query ?? '');
    if (reference === null) {
      return send(
        reply,
        400,
        stripeError('invalid_request_error', "the sandbox searches only metadata['merchant_reference']:'…'", {
          param: 'query',
        }),
        requestId,
        null,
      );
    }
    const data = (byReference.get(reference) ?? []).flatMap((id) => {
      const payment = payments.get(id);
      return payment === undefined ? [] : [paymentIntentObject(payment, baseUrl)];
    });
    const body = { object: 'search_result', data, has_more: false, next_page: null, url: '/v1/payment_intents/search' };
    return send(reply, 200, JSON.stringify(body), requestId, null);
  });

  app.get<{ Params: { id: string } }>('/v1/payment_intents/:id', async (request, reply) => {
    const requestId = stripeId('req');
    const payment = payments.get(request.params.id);
    if (payment === undefined) {
      return noSuchPaymentIntent(reply, request.params.id, requestId);
    }
    return send(reply, 200, JSON.stringify(paymentIntentObject(payment, baseUrl)), requestId, null);
  });

  app.post<{ Params: { id: string } }>('/v1/payment_intents/:id/cancel', async (request, reply) => {
    const requestId = stripeId('req');
    await dispatcher.wait(defaults.responseDelayMs);
    const payment = payments.get(request.params.id);
    if (payment === undefined) {
      return noSuchPaymentIntent(reply, request.params.id, requestId);
    }
    if (payment.status !== 'processing' && payment.status !== 'requires_action') {
      return send(
        reply,
        400,
        stripeError(
          'invalid_request_error',
          `You cannot cancel this PaymentIntent because it has a status of ${String(paymentIntentObject(payment, baseUrl).status)}.`,
          { code: 'payment_intent_unexpected_state', payment_intent: paymentIntentObject(payment, baseUrl) },
        ),
        requestId,
        null,
      );
    }
    const canceled = update(payment, { status: 'canceled', canceledSec: Math.floor(Date.now() / 1000) });
    deliver(canceled, [makeEvent(canceled, 'payment_intent.canceled')]);
    return send(reply, 200, JSON.stringify(paymentIntentObject(canceled, baseUrl)), requestId, null);
  });

  app.get<{ Params: { id: string } }>('/pay/:id', async (request, reply) =>
    reply.type('text/plain; charset=utf-8').send(`sandbox payment page for ${request.params.id}\n`),
  );

  registerControlRoutes(app, controls);

  const address = await app.listen({ host: '127.0.0.1', port: resolved.port });
  baseUrl = address.replace('localhost', '127.0.0.1');
  let closed: Promise<void> | null = null;
  return {
    url: baseUrl,
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

function filterOf(query: Record<string, string | undefined>): SandboxLogFilter {
  return {
    merchantReference: query.merchant_reference,
    paymentId: query.payment_id,
    eventId: query.event_id,
  };
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

/** `controls` over HTTP under `/_sandbox` (JSON bodies; field names as in the TypeScript types). */
function registerControlRoutes(app: FastifyInstance, controls: SandboxControls): void {
  type Query = { Querystring: Record<string, string | undefined> };
  const bodyOf = (request: FastifyRequest): JsonObject =>
    (typeof request.body === 'object' && request.body !== null ? request.body : {}) as JsonObject;

  app.get<Query>('/_sandbox/charges', async (request) => {
    const { order_id: orderId, merchant_reference: reference } = request.query;
    return orderId !== undefined ? controls.orderLedger(orderId) : controls.ledger(reference ?? '');
  });
  app.get<Query>('/_sandbox/deliveries', async (request) => ({
    data: controls.deliveries(filterOf(request.query)),
  }));
  app.get<Query>('/_sandbox/events', async (request) => ({ data: controls.events(filterOf(request.query)) }));
  app.get('/_sandbox/payments', async () => ({ data: controls.payments(), createRequests: controls.createRequests() }));
  app.get('/_sandbox/signing', async () => controls.signing());
  app.post('/_sandbox/signing', async (request) => {
    const body = bodyOf(request);
    const scheme =
      body.scheme === 'standard-webhooks' ? 'standard-webhooks' : body.scheme === 'stripe' ? 'stripe' : null;
    if (scheme === null) throw new InvalidOption('scheme', 'must be stripe or standard-webhooks');
    return controls.setSigning({ scheme, secret: typeof body.secret === 'string' ? body.secret : undefined });
  });
  app.post('/_sandbox/webhook-url', async (request, reply) => {
    const { url } = bodyOf(request);
    controls.setWebhookUrl(typeof url === 'string' ? url : null);
    return reply.code(204).send();
  });
  app.post('/_sandbox/defaults', async (request, reply) => {
    controls.setDefaults(checkPaymentPlan(request.body));
    return reply.code(204).send();
  });
  app.post('/_sandbox/plans', async (request, reply) => {
    const body = bodyOf(request);
    const match = (typeof body.match === 'object' && body.match !== null ? body.match : {}) as JsonObject;
    controls.plan(
      {
        orderId: typeof match.orderId === 'string' ? match.orderId : undefined,
        merchantReference: typeof match.merchantReference === 'string' ? match.merchantReference : undefined,
      },
      checkPaymentPlan(body.plan),
      numberOr(body.times, 1),
    );
    return reply.code(204).send();
  });
  app.post<{ Params: { id: string } }>('/_sandbox/payments/:id/settle', async (request, reply) => {
    if (controls.payment(request.params.id) === undefined) return reply.code(404).send({ error: 'no such payment' });
    const outcome = bodyOf(request).outcome === 'decline' ? 'decline' : 'succeed';
    return controls.settle(request.params.id, outcome);
  });
  app.post<{ Params: { id: string } }>('/_sandbox/payments/:id/refund', async (request, reply) => {
    if (controls.payment(request.params.id) === undefined) return reply.code(404).send({ error: 'no such payment' });
    return controls.refund(request.params.id);
  });
  app.post<{ Params: { id: string } }>('/_sandbox/events/:id/resend', async (request, reply) => {
    if (controls.events({ eventId: request.params.id }).length === 0) {
      return reply.code(404).send({ error: 'no such event' });
    }
    const body = bodyOf(request);
    const data: readonly DeliveryRecord[] = await controls.resend(
      request.params.id,
      numberOr(body.copies, 1),
      numberOr(body.parallel, 1),
    );
    return { data };
  });
  app.post('/_sandbox/idle', async (request) => ({
    idle: await controls.idle(Math.min(numberOr(bodyOf(request).timeoutMs, 10_000), 120_000)),
  }));
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ApiDeps, type ApiOperation, handleApi, okResult } from './api-request.js';
import { expandObject } from './expand.js';
import { type Listed, listPage } from './list-page.js';
import type { PaymentPlan } from './payment-plan.js';
import type { SandboxEvent } from './sandbox-event.js';
import { checkWebhookUrl } from './sandbox-options.js';
import { parseSearchQuery } from './search-query.js';
import type { StripeEngine } from './stripe-engine.js';
import { paymentIntentObject, refundObject, stripeId } from './stripe-objects.js';
import { type RegisteredEndpoint, webhookEndpointObject } from './webhook-endpoints.js';
import { newSigningSecret } from './webhook-signer.js';
import { mergeMetadata, type Params } from './wire/params.js';
import { invalidParam, type JsonObject, noSuch } from './wire/stripe-api-error.js';

/** What the Stripe routes work on. */
export interface StripeRouteDeps extends ApiDeps {
  readonly engine: StripeEngine;
  readonly endpoints: Map<string, RegisteredEndpoint>;
  readonly baseUrl: () => string;
  /** The control plan armed for the next create request of this order / merchant reference, used up once. */
  readonly takePlan: (orderId: string | null, merchantReference: string | null) => PaymentPlan | undefined;
  /** Counts `POST /v1/payment_intents` requests. */
  readonly onCreateRequest: () => void;
}

type Route = { Params: { id: string } };

function metadataValue(params: Params, key: string): string | null {
  const metadata = params.raw.metadata;
  if (typeof metadata !== 'object' || metadata === null) return null;
  const value = (metadata as JsonObject)[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * Registers Stripe's API under `/v1` on `app`: PaymentIntents (create, retrieve, update, confirm, capture, cancel,
 * list, search), Refunds (create, retrieve, update, list), Charges (retrieve, list), Events (retrieve, list),
 * WebhookEndpoints (create, retrieve, update, list, delete). Every route goes through {@link handleApi}.
 * @see https://docs.stripe.com/api
 */
export function registerStripeRoutes(app: FastifyInstance, deps: StripeRouteDeps): void {
  const { engine } = deps;
  const route = (
    method: ApiOperation['method'],
    url: string,
    make: (request: FastifyRequest<Route>) => ApiOperation,
  ) => {
    app.route<Route>({
      method,
      url,
      handler: (request: FastifyRequest<Route>, reply: FastifyReply) => handleApi(request, reply, make(request), deps),
    });
  };
  const expander = (field: string, id: string): JsonObject | undefined => {
    if (field === 'latest_charge' || field === 'charge')
      return engine.charges.has(id) ? engine.chargeObject(id) : undefined;
    return engine.payments.has(id) ? engine.intentObject(id) : undefined;
  };
  const expanded = (object: JsonObject, params: Params) =>
    okResult(expandObject(object, params.strings('expand'), expander));
  const withExpand = async (params: Params, run: () => Promise<ReturnType<typeof okResult>>) => {
    const result = await run();
    return result.ok ? expanded(result.object, params) : result;
  };

  // PaymentIntents
  route('POST', '/v1/payment_intents', () => {
    deps.onCreateRequest();
    return {
      method: 'POST',
      matchedPlan: (params) =>
        deps.takePlan(metadataValue(params, 'order_id'), metadataValue(params, 'merchant_reference')),
      run: (params, plan, ctx) => withExpand(params, () => engine.createPaymentIntent(params, plan, ctx)),
    };
  });
  route('GET', '/v1/payment_intents', () => ({
    method: 'GET',
    run: (params) => {
      const items: Listed[] = [...engine.payments.values()].map((p) => ({
        id: p.id,
        createdSec: p.createdSec,
        object: () => paymentIntentObject(p, deps.baseUrl()),
      }));
      return expanded(listPage(items, params, '/v1/payment_intents', ['customer']), params);
    },
  }));
  route('GET', '/v1/payment_intents/search', () => ({
    method: 'GET',
    run: (params) => {
      params.only(['query', 'limit', 'page', 'expand']);
      const query = params.string('query', 1_000);
      if (query === undefined) throw invalidParam('query', 'Missing required param: query.', 'parameter_missing');
      const test = parseSearchQuery(query);
      const limit = params.integer('limit', 1, 100) ?? 10;
      const page = params.string('page', 100);
      const start = page === undefined ? 0 : Number(/^page_(\d{1,9})$/.exec(page)?.[1] ?? Number.NaN);
      if (!Number.isSafeInteger(start)) throw invalidParam('page', `Invalid page: ${page}`);
      const found = [...engine.payments.values()].filter(test);
      const slice = found.slice(start, start + limit);
      const more = start + limit < found.length;
      return expanded(
        {
          object: 'search_result',
          data: slice.map((p) => paymentIntentObject(p, deps.baseUrl())),
          has_more: more,
          next_page: more ? `page_${start + limit}` : null,
          total_count: found.length,
          url: '/v1/payment_intents/search',
        },
        params,
      );
    },
  }));
  route('GET', '/v1/payment_intents/:id', (request) => ({
    method: 'GET',
    run: (params) => {
      params.only(['expand', 'client_secret']);
      return expanded(engine.intentObject(request.params.id), params);
    },
  }));
  route('POST', '/v1/payment_intents/:id', (request) => ({
    method: 'POST',
    run: (params, _plan, ctx) => withExpand(params, () => engine.updatePaymentIntent(request.params.id, params, ctx)),
  }));
  for (const [verb, action] of [
    ['confirm', engine.confirmPaymentIntent],
    ['capture', engine.capturePaymentIntent],
    ['cancel', engine.cancelPaymentIntent],
  ] as const) {
    route('POST', `/v1/payment_intents/:id/${verb}`, (request) => ({
      method: 'POST',
      run: (params, _plan, ctx) => withExpand(params, () => action.call(engine, request.params.id, params, ctx)),
    }));
  }

  // Refunds
  route('POST', '/v1/refunds', () => ({
    method: 'POST',
    run: (params, _plan, ctx) => withExpand(params, () => engine.createRefund(params, ctx)),
  }));
  route('GET', '/v1/refunds', () => ({
    method: 'GET',
    run: (params) => {
      const intent = params.string('payment_intent', 255);
      const charge = params.string('charge', 255);
      const items: Listed[] = [...engine.refunds.values()]
        .filter(
          (r) =>
            (intent === undefined || r.paymentIntentId === intent) && (charge === undefined || r.chargeId === charge),
        )
        .map((r) => ({ id: r.id, createdSec: r.createdSec, object: () => refundObject(r) }));
      return expanded(listPage(items, params, '/v1/refunds', ['payment_intent', 'charge']), params);
    },
  }));
  route('GET', '/v1/refunds/:id', (request) => ({
    method: 'GET',
    run: (params) => {
      params.only(['expand']);
      return expanded(refundObject(engine.refund(request.params.id)), params);
    },
  }));
  route('POST', '/v1/refunds/:id', (request) => ({
    method: 'POST',
    run: (params, _plan, ctx) => withExpand(params, () => engine.updateRefund(request.params.id, params, ctx)),
  }));

  // Charges
  route('GET', '/v1/charges', () => ({
    method: 'GET',
    run: (params) => {
      const intent = params.string('payment_intent', 255);
      const items: Listed[] = [...engine.charges.values()]
        .filter((c) => intent === undefined || c.paymentIntentId === intent)
        .map((c) => ({ id: c.id, createdSec: c.createdSec, object: () => engine.chargeObject(c.id) }));
      return expanded(listPage(items, params, '/v1/charges', ['payment_intent', 'customer']), params);
    },
  }));
  route('GET', '/v1/charges/:id', (request) => ({
    method: 'GET',
    run: (params) => {
      params.only(['expand']);
      return expanded(engine.chargeObject(request.params.id), params);
    },
  }));

  // Events
  const stripeEventOf = (event: SandboxEvent) => ({ ...event.stripeEvent }) as JsonObject;
  route('GET', '/v1/events', () => ({
    method: 'GET',
    run: (params) => {
      const type = params.string('type', 200);
      const types = params.strings('types', 20);
      const success = params.boolean('delivery_success');
      const matches = (t: string) =>
        (type === undefined || t === type || (type.endsWith('.*') && t.startsWith(type.slice(0, -1)))) &&
        (types === undefined || types.includes(t));
      const delivered = (e: SandboxEvent) =>
        deps.dispatcher.log.some(
          (d) =>
            d.sourceEventId === e.id && d.kind === 'attempt' && d.status !== null && d.status >= 200 && d.status < 300,
        );
      const items: Listed[] = engine.events
        .filter((e) => matches(e.type) && (success === undefined || delivered(e) === success))
        .map((e) => ({ id: String(e.stripeEvent.id), createdSec: e.createdSec, object: () => stripeEventOf(e) }));
      return okResult(listPage(items, params, '/v1/events', ['type', 'types', 'delivery_success']));
    },
  }));
  route('GET', '/v1/events/:id', (request) => ({
    method: 'GET',
    run: (params) => {
      params.only(['expand']);
      const event = engine.events.find((e) => e.stripeEvent.id === request.params.id || e.id === request.params.id);
      if (event === undefined) throw noSuch('event', request.params.id);
      return okResult(stripeEventOf(event));
    },
  }));

  registerEndpointRoutes(route, deps);
}

function endpointInput(params: Params, current: RegisteredEndpoint | null) {
  const url = params.string('url', 2_048);
  if (url === undefined && current === null)
    throw invalidParam('url', 'Missing required param: url.', 'parameter_missing');
  if (url !== undefined) {
    try {
      checkWebhookUrl(url);
    } catch {
      throw invalidParam(
        'url',
        'The sandbox delivers webhooks only to http:// URLs on 127.0.0.1, [::1] or localhost.',
        'url_invalid',
      );
    }
  }
  const events = params.strings('enabled_events', 300);
  if (events === undefined && current === null) {
    throw invalidParam('enabled_events', 'Missing required param: enabled_events.', 'parameter_missing');
  }
  if (
    events !== undefined &&
    (events.length === 0 || events.some((e) => !/^(\*|[a-z_]+(\.[a-z_]+)*(\.\*)?)$/.test(e)))
  ) {
    throw invalidParam('enabled_events', 'Invalid enabled_events: event types like payment_intent.succeeded, or *.');
  }
  return { url, events };
}

function registerEndpointRoutes(
  route: (method: ApiOperation['method'], url: string, make: (request: FastifyRequest<Route>) => ApiOperation) => void,
  deps: StripeRouteDeps,
): void {
  const find = (id: string) => {
    const endpoint = deps.endpoints.get(id);
    if (endpoint === undefined) throw noSuch('webhook_endpoint', id);
    return endpoint;
  };
  route('POST', '/v1/webhook_endpoints', () => ({
    method: 'POST',
    run: (params) => {
      params.only(['url', 'enabled_events', 'description', 'metadata', 'api_version', 'connect', 'expand']);
      const { url, events } = endpointInput(params, null);
      const endpoint: RegisteredEndpoint = Object.freeze({
        id: stripeId('we'),
        url: url!,
        enabledEvents: Object.freeze(events!),
        secret: newSigningSecret('stripe'),
        previousSecrets: Object.freeze([]),
        status: 'enabled',
        description: params.string('description', 5_000) ?? null,
        metadata: Object.freeze(mergeMetadata({}, params.metadata())),
        createdSec: Math.floor(deps.nowMs() / 1000),
        apiVersion: params.string('api_version', 40) ?? null,
      });
      deps.endpoints.set(endpoint.id, endpoint);
      return okResult(webhookEndpointObject(endpoint, true));
    },
  }));
  route('GET', '/v1/webhook_endpoints', () => ({
    method: 'GET',
    run: (params) => {
      const items: Listed[] = [...deps.endpoints.values()].map((e) => ({
        id: e.id,
        createdSec: e.createdSec,
        object: () => webhookEndpointObject(e, false),
      }));
      return okResult(listPage(items, params, '/v1/webhook_endpoints'));
    },
  }));
  route('GET', '/v1/webhook_endpoints/:id', (request) => ({
    method: 'GET',
    run: () => okResult(webhookEndpointObject(find(request.params.id), false)),
  }));
  route('POST', '/v1/webhook_endpoints/:id', (request) => ({
    method: 'POST',
    run: (params) => {
      params.only(['url', 'enabled_events', 'description', 'metadata', 'disabled', 'expand']);
      const current = find(request.params.id);
      const { url, events } = endpointInput(params, current);
      const disabled = params.boolean('disabled');
      const next: RegisteredEndpoint = Object.freeze({
        ...current,
        url: url ?? current.url,
        enabledEvents: Object.freeze(events ?? [...current.enabledEvents]),
        description: params.has('description') ? (params.string('description', 5_000) ?? null) : current.description,
        metadata: Object.freeze(mergeMetadata(current.metadata, params.metadata())),
        status: disabled === undefined ? current.status : disabled ? 'disabled' : 'enabled',
      });
      deps.endpoints.set(next.id, next);
      return okResult(webhookEndpointObject(next, false));
    },
  }));
  route('DELETE', '/v1/webhook_endpoints/:id', (request) => ({
    method: 'DELETE',
    run: () => {
      const endpoint = find(request.params.id);
      deps.endpoints.delete(endpoint.id);
      return okResult({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
    },
  }));
}

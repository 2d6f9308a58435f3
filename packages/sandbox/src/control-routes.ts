import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { FaultRuleInput } from './faults/fault-rules.js';
import { checkPaymentPlan } from './payment-plan.js';
import type { SandboxControls, SandboxLogFilter } from './sandbox-controls.js';
import type { SentDelivery } from './sent-delivery.js';
import type { RegisteredEndpoint } from './webhook-endpoints.js';
import type { SandboxSigning } from './webhook-signer.js';
import { type JsonObject, StripeApiError } from './wire/stripe-api-error.js';
import { parseJsonBody } from './wire/stripe-form.js';

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

const bodyOf = (request: FastifyRequest): JsonObject =>
  parseJsonBody(typeof request.body === 'string' ? request.body : '');

const missing = (reply: FastifyReply, what: string) =>
  reply
    .code(404)
    .send({ error: { type: 'invalid_request_error', code: 'resource_missing', message: `no such ${what}` } });

const notServed = () =>
  new StripeApiError(
    403,
    'invalid_request_error',
    'Signing secrets are not served over HTTP: start the sandbox with --serve-secrets (serveSecrets: true).',
    { code: 'secrets_not_served' },
  );

/** An endpoint without its secrets (when secrets are not served). */
function withoutSecrets({ secret: _secret, previousSecrets: _previous, ...endpoint }: RegisteredEndpoint) {
  return endpoint;
}

/**
 * `controls` over HTTP under `/_sandbox` (JSON bodies; field names as in the TypeScript types): ledgers, the
 * delivery and fault logs, fault plans and rules, signing, settle/refund/resend, idle, the sandbox clock. The
 * signing secrets are served only with `serveSecrets` (`GET /_sandbox/signing` is 403 `secrets_not_served`
 * without it; other answers leave them out).
 * @see docs/sandbox.md "Controls".
 */
export function registerControlRoutes(
  app: FastifyInstance,
  controls: SandboxControls,
  { serveSecrets }: { serveSecrets: boolean },
): void {
  const signingAnswer = (signing: SandboxSigning) => (serveSecrets ? signing : { scheme: signing.scheme });
  type Query = { Querystring: Record<string, string | undefined> };
  type Id = { Params: { id: string } };

  app.get('/_sandbox/ledger', async () => controls.ledgerSnapshot());
  app.get<Query>('/_sandbox/faults', async (request) => ({ data: controls.faults(request.query.request_id) }));
  app.get<Query>('/_sandbox/charges', async (request) => {
    const { order_id: orderId, merchant_reference: reference } = request.query;
    return orderId !== undefined ? controls.orderLedger(orderId) : controls.ledger(reference ?? '');
  });
  app.get<Query>('/_sandbox/deliveries', async (request) => ({ data: controls.deliveries(filterOf(request.query)) }));
  app.get<Query>('/_sandbox/events', async (request) => ({ data: controls.events(filterOf(request.query)) }));
  app.get('/_sandbox/payments', async () => ({ data: controls.payments(), createRequests: controls.createRequests() }));
  app.get('/_sandbox/endpoints', async () => ({
    data: serveSecrets ? controls.endpoints() : controls.endpoints().map(withoutSecrets),
  }));
  app.get('/_sandbox/signing', async () => {
    if (!serveSecrets) throw notServed();
    return controls.signing();
  });
  app.post('/_sandbox/signing', async (request) => {
    const body = bodyOf(request);
    const scheme =
      body.scheme === 'standard-webhooks' ? 'standard-webhooks' : body.scheme === 'stripe' ? 'stripe' : null;
    if (scheme === null) throw new InvalidOption('scheme', 'must be stripe or standard-webhooks');
    const previous = body.previousSecrets;
    if (previous !== undefined && (!Array.isArray(previous) || !previous.every((s) => typeof s === 'string'))) {
      throw new InvalidOption('previousSecrets', 'must be a list of secrets');
    }
    return signingAnswer(
      controls.setSigning({
        scheme,
        secret: typeof body.secret === 'string' ? body.secret : undefined,
        previousSecrets: previous as string[] | undefined,
      }),
    );
  });
  app.post('/_sandbox/webhook-url', async (request, reply) => {
    const { url } = bodyOf(request);
    controls.setWebhookUrl(typeof url === 'string' ? url : null);
    return reply.code(204).send();
  });
  app.post('/_sandbox/defaults', async (request, reply) => {
    controls.setDefaults(checkPaymentPlan(bodyOf(request)));
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
  app.post('/_sandbox/fault-rules', async (request, reply) => {
    const body = bodyOf(request);
    const rules = Array.isArray(body.rules) ? body.rules : [body];
    for (const rule of rules) controls.addFaultRule(rule as FaultRuleInput);
    return reply.code(204).send();
  });
  app.delete<Query>('/_sandbox/fault-rules', async (request, reply) => {
    const seed = request.query.seed;
    controls.clearFaultRules(seed !== undefined && /^\d{1,9}$/.test(seed) ? Number(seed) : undefined);
    return reply.code(204).send();
  });
  app.post('/_sandbox/seed', async (request, reply) => {
    controls.reseedFaults(numberOr(bodyOf(request).seed, Number.NaN));
    return reply.code(204).send();
  });
  app.post('/_sandbox/clock', async (request) => {
    controls.advanceClock(numberOr(bodyOf(request).advanceMs, 0));
    return { nowMs: controls.nowMs() };
  });
  app.post<Id>('/_sandbox/payments/:id/settle', async (request, reply) => {
    if (controls.payment(request.params.id) === undefined) return missing(reply, 'payment');
    const outcome = bodyOf(request).outcome === 'decline' ? 'decline' : 'succeed';
    return controls.settle(request.params.id, outcome);
  });
  app.post<Id>('/_sandbox/payments/:id/refund', async (request, reply) => {
    if (controls.payment(request.params.id) === undefined) return missing(reply, 'payment');
    return controls.refund(request.params.id);
  });
  app.post<Id>('/_sandbox/events/:id/resend', async (request, reply) => {
    if (controls.events({ eventId: request.params.id }).length === 0) return missing(reply, 'event');
    const body = bodyOf(request);
    const data: readonly SentDelivery[] = await controls.resend(
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

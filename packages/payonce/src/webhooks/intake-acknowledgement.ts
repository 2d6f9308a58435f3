import type { StoredResponse } from '../core/receipt.js';
import type { ResponseInit } from '../core/response.js';
import type { HttpResponse } from '../http/http-exchange.js';
import type { WebhookDecline } from './intake-decline.js';
import { type IntakeProblem, problemOf } from './intake-problem.js';
import type { ProviderEvent } from './providers/provider-event.js';
import type { HeadersInput } from './verify/headers.js';

/** One delivery as the intake received it: the endpoint name, the exact body bytes and the headers. */
export interface IntakeRequest {
  /** The endpoint name the delivery arrived on (the `:provider` of `POST /webhooks/:provider`). */
  readonly endpoint: string;
  readonly rawBody: Uint8Array;
  readonly headers: HeadersInput;
  /**
   * Who sent it (the adapters pass the peer address: express `req.ip`, fastify `request.ip`), for the per-client
   * `refusalLimit`. @default '' (every caller that does not say shares one bucket)
   */
  readonly client?: string;
  /** Aborted when the sender disconnects: a delivery waiting for an in-flight duplicate stops waiting. Optional. */
  readonly signal?: AbortSignal;
}

/**
 * How one provider wants to be answered. The intake calls `accepted`/`declined` inside the receipt claim: what
 * they return is stored and replayed to every redelivery. `deliver` turns a stored response into the response
 * for THIS request (identity for most providers; Payme puts the request's JSON-RPC `id` around it), and
 * `problem` renders every refusal or failure.
 * @see docs/design.md §5 "Order of work"; fixtures payme/errors.json, click/protocol.json.
 */
export interface Acknowledgement {
  /** The response to store for a handler's result (any JSON value; `undefined` means "nothing to say"). */
  accepted(event: ProviderEvent, result: unknown): ResponseInit;
  /** The response to store for a handler's {@link WebhookDecline}. */
  declined(event: ProviderEvent, decline: WebhookDecline): ResponseInit;
  /** The response sent for a stored one, fresh or replayed. */
  deliver(stored: StoredResponse, request: IntakeRequest): HttpResponse;
  /** The response for a refused or failed delivery. */
  problem(problem: IntakeProblem, request: IntakeRequest): HttpResponse;
}

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json' });

/**
 * The acknowledgement of JSON webhook providers (Stripe, Standard Webhooks/Svix, GitHub, YooKassa, Shopify):
 * `200 application/json` with the handler's result as JSON (`{"received":true}` when it returns nothing), a
 * decline as `200 {"received":true,"declined":{"code","message"}}` (a retry would not change the answer), and
 * every problem as RFC 9457 problem+json with its status (4xx for refusals, 409/5xx so the provider redelivers).
 * @see Stripe "Return a 2xx status code quickly" (docs.stripe.com/webhooks); Standard Webhooks spec "Retry
 * schedule" (non-2xx is a failure); YooKassa webhooks (HTTP 200 confirms receipt).
 * @example createWebhookIntake({ guard, endpoints: { stripe: { profile, scheme, handler, acknowledgement: jsonAcknowledgement() } } })
 */
export function jsonAcknowledgement(): Acknowledgement {
  return {
    accepted: (_event, result) => ({
      status: 200,
      headers: JSON_HEADERS,
      body: JSON.stringify(result === undefined ? { received: true } : result),
    }),
    declined: (_event, decline) => ({
      status: 200,
      headers: JSON_HEADERS,
      body: JSON.stringify({ received: true, declined: { code: decline.code, message: decline.message } }),
    }),
    deliver: (stored) => stored,
    problem: (problem) => problemOf(problem),
  };
}

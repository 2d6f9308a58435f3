import { SANDBOX_API_VERSION } from './stripe-objects.js';
import type { JsonObject } from './wire/stripe-api-error.js';

/** A webhook endpoint registered with `POST /v1/webhook_endpoints` (or `--webhook-url`). */
export interface RegisteredEndpoint {
  /** `we_…`. */
  readonly id: string;
  readonly url: string;
  /** Event types it receives; `*` for all, `payment_intent.*` for a family. */
  readonly enabledEvents: readonly string[];
  /** Signing secret, `whsec_…` (shown only by the create answer, as at Stripe). */
  readonly secret: string;
  /** Older secrets still signed during a rotation. */
  readonly previousSecrets: readonly string[];
  readonly status: 'enabled' | 'disabled';
  readonly description: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly createdSec: number;
  readonly apiVersion: string | null;
}

/** True when `type` is one of `enabled` (`*`, an exact type, or `family.*`). */
export function acceptsEvent(enabled: readonly string[], type: string): boolean {
  return enabled.some(
    (pattern) =>
      pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))),
  );
}

/** The Stripe WebhookEndpoint object; `secret` only when `withSecret`. @see https://docs.stripe.com/api/webhook_endpoints/object */
export function webhookEndpointObject(endpoint: RegisteredEndpoint, withSecret: boolean): JsonObject {
  const out: JsonObject = {
    id: endpoint.id,
    object: 'webhook_endpoint',
    api_version: endpoint.apiVersion ?? SANDBOX_API_VERSION,
    application: null,
    created: endpoint.createdSec,
    description: endpoint.description,
    enabled_events: [...endpoint.enabledEvents],
    livemode: false,
    metadata: { ...endpoint.metadata },
    status: endpoint.status,
    url: endpoint.url,
  };
  if (withSecret) out.secret = endpoint.secret;
  return out;
}

import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { FaultRulesFile } from './faults/fault-rules.js';
import { checkPaymentPlan, DEFAULT_PAYMENT_PLAN, type PaymentPlan, resolvePaymentPlan } from './payment-plan.js';
import { RETRY_SCHEDULES, STANDARD_WEBHOOKS_RETRY_SCHEDULE_MS } from './retry-schedule.js';
import { checkSigning, newSigningSecret, type SandboxSigningScheme } from './webhook-signer.js';
import { checkAllowedHosts } from './wire/control-guard.js';

/** A webhook endpoint registered at start (like `POST /v1/webhook_endpoints`; `--webhook-url`). */
export interface SandboxEndpointOption {
  /** Loopback `http:` URL. */
  readonly url: string;
  /** @default ['*'] */
  readonly enabledEvents?: readonly string[];
  /** Stripe signing secret. @default a fresh random `whsec_…` */
  readonly secret?: string;
  /** Older secrets also signed with (rotation). */
  readonly previousSecrets?: readonly string[];
}

/** Options of `createSandbox`. The server always listens on 127.0.0.1. */
export interface SandboxOptions {
  /** TCP port on 127.0.0.1. @default 0 (a free port; read `url`) */
  port?: number;
  /** Where webhooks go; settable later with `controls.setWebhookUrl`. @default null (attempts fail and are retried) */
  webhookUrl?: string | null;
  /**
   * Event types the default endpoint (`webhookUrl`) receives; `['*']` for all of Stripe's.
   * @default DEFAULT_ENDPOINT_EVENTS (the ones payonce's service acts on; `charge.succeeded` with `twoEventIds`)
   */
  webhookEvents?: readonly string[] | null;
  /** Endpoints registered from the start; each gets every event its `enabledEvents` names. @default [] */
  webhookEndpoints?: readonly SandboxEndpointOption[];
  /** Signing scheme and secret(s) of the default endpoint. @default { scheme: 'stripe', secret: a fresh random `whsec_…` } */
  signing?: { scheme?: SandboxSigningScheme; secret?: string; previousSecrets?: readonly string[] };
  /** Fault rules over API requests (method, path pattern, probability, count). @default none */
  faultRules?: FaultRulesFile;
  /** Seed of the fault rules' random draws (overrides `faultRules.seed`). @default 1 */
  seed?: number;
  /**
   * Require a test secret key (`Authorization: Bearer sk_test_…` or Basic) on `/v1` requests, as Stripe does.
   * @default true
   */
  requireApiKey?: boolean;
  /**
   * Multiplier of every scheduled duration (retry delays, `Retry-After`, `settleAfterMs`); `0.001` turns the
   * 5 s retry into 5 ms. Must be > 0 and ≤ 1000. @default 1
   */
  timeScale?: number;
  /**
   * Delay before each delivery attempt, unscaled ms (1–20 entries), or a named schedule: `standard-webhooks`,
   * `stripe-live`, `stripe-test`. @default STANDARD_WEBHOOKS_RETRY_SCHEDULE_MS
   */
  retryScheduleMs?: readonly number[] | 'standard-webhooks' | 'stripe-live' | 'stripe-test';
  /** How long one delivery waits for the target's answer, real ms. @default 15_000 (Standard Webhooks: 15–30 s) */
  deliveryTimeoutMs?: number;
  /** Run-level fault knobs for every payment; a per-request plan overrides them. @default DEFAULT_PAYMENT_PLAN */
  defaults?: PaymentPlan;
  /**
   * Serve the signing secrets over HTTP: `GET /_sandbox/signing` (else 403 `secrets_not_served`), the secrets in
   * `POST /_sandbox/signing`'s answer and in `GET /_sandbox/endpoints` (else left out). A process that signs its own
   * events against the sandbox (`payonce storm`) needs it; `controls` in the same process always see them.
   * `--serve-secrets`. @default false
   */
  serveSecrets?: boolean;
  /**
   * Host names answered besides 127.0.0.1, localhost and ::1 (`Host` header; bare names, no port). Any other `Host`
   * gets 403 `host_not_allowed` (DNS rebinding). `--allowed-host`, repeatable. @default []
   */
  allowedHosts?: readonly string[];
}

/** {@link SandboxOptions} checked, with defaults applied. */
export function resolveSandboxOptions(options: SandboxOptions = {}) {
  const port = options.port ?? 0;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) throw new InvalidOption('port', 'must be 0…65535');
  const timeScale = options.timeScale ?? 1;
  if (!Number.isFinite(timeScale) || timeScale <= 0 || timeScale > 1000) {
    throw new InvalidOption('timeScale', 'must be > 0 and ≤ 1000');
  }
  const named = options.retryScheduleMs;
  const schedule = typeof named === 'string' ? RETRY_SCHEDULES[named] : (named ?? STANDARD_WEBHOOKS_RETRY_SCHEDULE_MS);
  if (schedule === undefined) throw new InvalidOption('retryScheduleMs', `unknown schedule ${String(named)}`);
  if (
    schedule.length < 1 ||
    schedule.length > 20 ||
    !schedule.every((ms) => Number.isSafeInteger(ms) && ms >= 0 && ms <= 7 * 86_400_000)
  ) {
    throw new InvalidOption('retryScheduleMs', '1–20 integer delays from 0 to 7 days');
  }
  const deliveryTimeoutMs = options.deliveryTimeoutMs ?? 15_000;
  if (!Number.isSafeInteger(deliveryTimeoutMs) || deliveryTimeoutMs < 1 || deliveryTimeoutMs > 600_000) {
    throw new InvalidOption('deliveryTimeoutMs', 'must be an integer from 1 to 600000');
  }
  const scheme = options.signing?.scheme ?? 'stripe';
  const signing = checkSigning({
    scheme,
    secret: options.signing?.secret ?? newSigningSecret(scheme),
    previousSecrets: options.signing?.previousSecrets,
  });
  const webhookUrl = options.webhookUrl ?? null;
  if (webhookUrl !== null) checkWebhookUrl(webhookUrl);
  const endpoints = (options.webhookEndpoints ?? []).map((endpoint) => {
    checkWebhookUrl(endpoint.url);
    const checked = checkSigning({
      scheme: 'stripe',
      secret: endpoint.secret ?? newSigningSecret('stripe'),
      previousSecrets: endpoint.previousSecrets,
    });
    return Object.freeze({
      url: endpoint.url,
      enabledEvents: Object.freeze([...(endpoint.enabledEvents ?? ['*'])]),
      secret: checked.secret,
      previousSecrets: Object.freeze([...(checked.previousSecrets ?? [])]),
    });
  });
  const seed = options.seed ?? options.faultRules?.seed ?? 1;
  if (!Number.isSafeInteger(seed)) throw new InvalidOption('seed', 'must be an integer');
  return Object.freeze({
    port,
    timeScale,
    scheduleMs: Object.freeze(schedule.map((ms) => Math.round(ms * timeScale))),
    deliveryTimeoutMs,
    signing,
    webhookUrl,
    webhookEvents: options.webhookEvents === undefined ? null : options.webhookEvents,
    endpoints,
    faultRules: options.faultRules?.rules ?? [],
    seed,
    requireApiKey: options.requireApiKey ?? true,
    serveSecrets: options.serveSecrets ?? false,
    allowedHosts: checkAllowedHosts(options.allowedHosts),
    defaults: resolvePaymentPlan(DEFAULT_PAYMENT_PLAN, checkPaymentPlan(options.defaults ?? {}, 'defaults')),
  });
}

/**
 * Checks a webhook target: an `http:` URL on a loopback host (127.0.0.1, ::1 or localhost), since the sandbox
 * only ever talks to the local machine.
 * @throws {InvalidOption} anything else.
 */
export function checkWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidOption('webhookUrl', 'is not a URL');
  }
  if (parsed.protocol !== 'http:' || !['127.0.0.1', '[::1]', 'localhost'].includes(parsed.hostname)) {
    throw new InvalidOption('webhookUrl', 'must be http:// on 127.0.0.1, [::1] or localhost');
  }
  return url;
}

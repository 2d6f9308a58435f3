import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import { canonicalJson } from 'payonce/internal/http/canonical-json.js';
import type { ActionContext } from './action-context.js';
import type { FaultLedger } from './faults/fault-ledger.js';
import type { FaultRules, RuleMatch } from './faults/fault-rules.js';
import { NO_FAULTS, parseFaults } from './faults/fault-spec.js';
import type { HeaderFaultKeys } from './faults/header-fault-keys.js';
import type { IdempotencyKeys, StoredAnswer } from './idempotency-keys.js';
import { checkPaymentPlan, type PaymentPlan, type ResolvedPaymentPlan, resolvePaymentPlan } from './payment-plan.js';
import type { ActionResult } from './stripe-engine.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';
import { Params } from './wire/params.js';
import { type JsonObject, StripeApiError } from './wire/stripe-api-error.js';
import { parseJsonBody, parseStripeForm } from './wire/stripe-form.js';

/** One API request the sandbox answered (the ledger's `requests`). */
export interface RequestRecord {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly idempotencyKey: string | null;
  /** HTTP status answered, `null` when the connection was dropped without an answer. */
  readonly status: number | null;
  readonly replayed: boolean;
  readonly faults: readonly string[];
  readonly atMs: number;
}

/** What the API layer needs. */
export interface ApiDeps {
  readonly keys: IdempotencyKeys;
  readonly rules: FaultRules;
  /** Idempotency keys whose `Payonce-Fault` was applied (once per key unless `repeat`). */
  readonly headerFaultKeys: HeaderFaultKeys;
  readonly faults: FaultLedger;
  readonly dispatcher: WebhookDispatcher;
  readonly defaults: () => ResolvedPaymentPlan;
  readonly nowMs: () => number;
  readonly requests: RequestRecord[];
}

/** One API operation: what it does with the parsed parameters. */
export interface ApiOperation {
  /** `POST` operations are idempotent by key and can take effect; others only read. */
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** A plan that applies to this request only when no `Sandbox-Plan` header is sent (the create plan of an order). */
  readonly matchedPlan?: (params: Params) => PaymentPlan | undefined;
  readonly run: (params: Params, plan: ResolvedPaymentPlan, ctx: ActionContext) => Promise<ActionResult> | ActionResult;
}

const JSON_TYPE = 'application/json; charset=utf-8';

const REQUEST_IDS = new WeakMap<object, string>();

/** Gives `request` its `Request-Id` (`req_…`), also sent as the `request-id` answer header. */
export function assignRequestId(request: FastifyRequest, id: string): void {
  REQUEST_IDS.set(request.raw, id);
}

/** The `Request-Id` of `request` (assigned in the onRequest hook). */
export function requestIdOf(request: FastifyRequest): string {
  return REQUEST_IDS.get(request.raw) ?? '';
}

/** Parameters of a request: form or JSON body for POST, the query string otherwise. @throws {StripeApiError} 400. */
export function paramsOf(request: FastifyRequest): Params {
  if (request.method !== 'POST') {
    const url = request.raw.url ?? '';
    const at = url.indexOf('?');
    return new Params(at < 0 ? {} : parseStripeForm(url.slice(at + 1)));
  }
  const text = typeof request.body === 'string' ? request.body : '';
  const type = String(request.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/json')) return new Params(parseJsonBody(text));
  if (type === '' || type.startsWith('application/x-www-form-urlencoded')) return new Params(parseStripeForm(text));
  throw new StripeApiError(
    400,
    'invalid_request_error',
    `Invalid Content-Type ${type.slice(0, 80)}: send application/x-www-form-urlencoded (Stripe's encoding) or application/json.`,
  );
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value[0] : undefined;
}

function asStripe(error: unknown): StripeApiError {
  if (error instanceof StripeApiError) return error;
  if (error instanceof InvalidOption) return new StripeApiError(400, 'invalid_request_error', error.message);
  throw error;
}

/** What no rule fired for. */
const NO_RULE: RuleMatch = Object.freeze({ faults: NO_FAULTS, sources: Object.freeze([]) });

/**
 * True when the request carries `Sandbox-Fault-Rules: skip`: the fault rules neither match it nor draw for it (the
 * storm's own calls to the provider, which the user's rules are not about). @throws {InvalidOption} another value.
 */
function rulesSkipped(request: FastifyRequest): boolean {
  const value = headerOf(request, 'sandbox-fault-rules');
  if (value === undefined) return false;
  if (value.trim().toLowerCase() !== 'skip') throw new InvalidOption('Sandbox-Fault-Rules', 'must be "skip"');
  return true;
}

interface Faults {
  readonly explicit: PaymentPlan;
  readonly names: readonly string[];
  readonly source: string;
}

/**
 * The fault knobs of a request: `Sandbox-Plan` (a JSON plan) or the matched plan, the rules (unless
 * `Sandbox-Fault-Rules: skip`), `Payonce-Fault` (on the first request of an idempotency key only, unless it names
 * `repeat`).
 */
function faultsOf(
  request: FastifyRequest,
  deps: ApiDeps,
  op: ApiOperation,
  params: Params,
  at: { path: string; key: string | null },
): Faults {
  const path = at.path;
  const legacy = headerOf(request, 'sandbox-plan');
  let base: PaymentPlan | undefined;
  const sources: string[] = [];
  if (legacy !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(legacy);
    } catch {
      throw new InvalidOption('Sandbox-Plan', 'must be a JSON object');
    }
    base = checkPaymentPlan(value, 'Sandbox-Plan');
    sources.push('plan');
  } else {
    base = op.matchedPlan?.(params);
    if (base !== undefined) sources.push('plan');
  }
  const byRule = rulesSkipped(request) ? NO_RULE : deps.rules.take(request.method, path);
  sources.push(...byRule.sources);
  const header = headerOf(request, 'payonce-fault');
  const parsed = header === undefined ? NO_FAULTS : parseFaults(header);
  const byHeader =
    parsed.names.length > 0 && deps.headerFaultKeys.take(at.key, parsed.repeat === true) ? parsed : NO_FAULTS;
  if (byHeader.names.length > 0) sources.push('header');
  const names = [...byRule.faults.names, ...byHeader.names];
  if (base !== undefined) names.unshift(...Object.keys(base).map((knob) => `plan:${knob}`));
  return {
    explicit: { ...(base ?? {}), ...byRule.faults.plan, ...byHeader.plan },
    names,
    source: sources.length === 0 ? 'defaults' : sources.join('+'),
  };
}

/**
 * Runs one API request the way Stripe's API behaves, with the sandbox's faults on top:
 * 1. parameters (form or JSON; bad input → 400 in Stripe's shape);
 * 2. faults before the commit (delay, 429, 500/503, a hang with the key in flight);
 * 3. the idempotency key of a POST (replay / 400 other parameters / 409 in flight);
 * 4. the operation, whose answer is stored under the key when it took effect (2xx or a 402 decline);
 * 5. faults after the commit (connection dropped, 504, 500/503, a hang), then the answer with `Request-Id`,
 *    `Idempotency-Key`, `Idempotent-Replayed`, `Original-Request`; `Stripe-Should-Retry: true` on a 409 key in use
 *    and on injected 5xx (a retry with the key is safe), `Retry-After` on a 429.
 * Every fault goes to the fault ledger with the request id.
 */
export async function handleApi(
  request: FastifyRequest,
  reply: FastifyReply,
  op: ApiOperation,
  deps: ApiDeps,
): Promise<FastifyReply | undefined> {
  const requestId = requestIdOf(request);
  const path = (request.raw.url ?? '').split('?')[0] ?? '';
  const key = op.method === 'POST' ? (headerOf(request, 'idempotency-key') ?? null) : null;
  const record = (status: number | null, replayed: boolean, names: readonly string[]) => {
    deps.requests.push(
      Object.freeze({
        requestId,
        method: request.method,
        path,
        idempotencyKey: key,
        status,
        replayed,
        faults: names,
        atMs: deps.nowMs(),
      }),
    );
    if (deps.requests.length > 10_000) deps.requests.shift();
  };
  let faults: Faults = { explicit: {}, names: [], source: 'defaults' };
  try {
    const params = paramsOf(request);
    faults = faultsOf(request, deps, op, params, { path, key });
    const plan = resolvePaymentPlan(deps.defaults(), faults.explicit);
    const note = (fault: string, phase: 'before-commit' | 'after-commit', detail: string | null = null) =>
      deps.faults.record({
        fault,
        phase,
        requestId,
        method: request.method,
        path,
        eventId: null,
        source: faults.source,
        detail,
      });

    if (plan.responseDelayMs > 0) {
      note('delay', 'before-commit', `${plan.responseDelayMs} ms`);
      await deps.dispatcher.wait(plan.responseDelayMs);
    }
    const before = beforeCommit(plan);
    if (before !== null) {
      note(plan.responseFault, 'before-commit', before.detail);
      record(before.error.status, false, faults.names);
      if (before.error.status === 429) reply.header('retry-after', String(plan.retryAfterSec));
      else reply.header('stripe-should-retry', 'true');
      return send(reply, before.error.status, JSON.stringify(before.error.body()), key, null);
    }
    const fingerprint = `${request.method} ${path} ${canonicalJson(JSON.stringify(params.raw)) ?? JSON.stringify(params.raw)}`;
    const state = key === null ? { kind: 'new' as const } : deps.keys.begin(key, request.method, path, fingerprint);
    if (state.kind === 'replay') {
      return await afterCommit(request, reply, plan, state.answer, key, true, note, (s) =>
        record(s, true, faults.names),
      );
    }
    if (plan.responseFault === 'hang-before-commit') {
      note('hang-before-commit', 'before-commit', `${plan.hangMs} ms, then the connection is closed`);
      record(null, false, faults.names);
      reply.hijack();
      await deps.dispatcher.wait(plan.hangMs);
      if (key !== null) deps.keys.release(key);
      request.raw.socket.destroy();
      return undefined;
    }
    let result: ActionResult;
    try {
      result = await op.run(params, plan, {
        requestId,
        idempotencyKey: key,
        explicit: faults.explicit,
        source: faults.source,
        method: request.method,
        path,
      });
    } catch (error) {
      if (key !== null) deps.keys.release(key);
      throw error;
    }
    const stored: StoredAnswer = {
      fingerprint,
      method: request.method,
      path,
      status: result.ok ? 200 : result.error.status,
      body: JSON.stringify(result.ok ? result.object : result.error.body()),
      requestId,
      storedAtMs: deps.nowMs(),
    };
    if (key !== null) deps.keys.store(key, stored);
    return await afterCommit(request, reply, plan, stored, key, false, note, (s) => record(s, false, faults.names));
  } catch (error) {
    const stripe = asStripe(error);
    record(stripe.status, false, faults.names);
    if (stripe.status === 409) reply.header('stripe-should-retry', 'true');
    return send(reply, stripe.status, JSON.stringify(stripe.body()), key, null);
  }
}

function beforeCommit(plan: ResolvedPaymentPlan): { error: StripeApiError; detail: string } | null {
  switch (plan.responseFault) {
    case 'rate-limit':
      return {
        error: new StripeApiError(
          429,
          'rate_limit_error',
          'Too many requests hit the API too quickly. Please retry later.',
          {
            code: 'rate_limit',
          },
        ),
        detail: `429, Retry-After: ${plan.retryAfterSec}`,
      };
    case '500-before-commit':
    case '503-before-commit': {
      const status = plan.responseFault === '500-before-commit' ? 500 : 503;
      return {
        error: new StripeApiError(
          status,
          'api_error',
          'An error occurred with our API (sandbox fault before commit: nothing happened).',
        ),
        detail: String(status),
      };
    }
    default:
      return null;
  }
}

async function afterCommit(
  request: FastifyRequest,
  reply: FastifyReply,
  plan: ResolvedPaymentPlan,
  stored: StoredAnswer,
  key: string | null,
  replayed: boolean,
  note: (fault: string, phase: 'after-commit', detail?: string | null) => void,
  record: (status: number | null) => void,
): Promise<FastifyReply | undefined> {
  const fault = plan.responseFault;
  switch (fault) {
    case 'drop-after-commit':
      note(fault, 'after-commit', replayed ? 'replayed answer dropped' : 'connection closed without an answer');
      record(null);
      reply.hijack();
      request.raw.socket.destroy();
      return undefined;
    case 'hang-after-commit':
      note(fault, 'after-commit', `${plan.hangMs} ms, then the connection is closed`);
      record(null);
      reply.hijack();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, plan.hangMs);
        request.raw.socket.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      request.raw.socket.destroy();
      return undefined;
    case 'gateway-timeout-after-commit':
      note(fault, 'after-commit', '504 with an empty body');
      record(504);
      return reply.code(504).send('');
    case '500-after-commit':
    case '503-after-commit': {
      const status = fault === '500-after-commit' ? 500 : 503;
      note(fault, 'after-commit', `${status}; the real answer is stored under the idempotency key`);
      record(status);
      // A retry with the key gets the stored answer, so the client is told to retry (Stripe-Should-Retry).
      reply.header('stripe-should-retry', 'true');
      const error = new StripeApiError(
        status,
        'api_error',
        'An error occurred with our API (sandbox fault after commit: the request took effect).',
      );
      return send(reply, status, JSON.stringify(error.body()), key, null);
    }
    default:
      record(stored.status);
      return send(reply, stored.status, stored.body, key, replayed ? stored.requestId : null);
  }
}

/** Sends a JSON answer with Stripe's headers. */
export function send(
  reply: FastifyReply,
  status: number,
  body: string,
  key: string | null,
  replayOf: string | null,
): FastifyReply {
  reply.code(status).type(JSON_TYPE);
  if (key !== null) reply.header('idempotency-key', key);
  if (replayOf !== null) reply.header('idempotent-replayed', 'true').header('original-request', replayOf);
  return reply.send(body);
}

/** An object answer (list, retrieve) for read routes. */
export function okResult(object: JsonObject): ActionResult {
  return { ok: true, object };
}

import { randomUUID } from 'node:crypto';
import { fixtureFiles, readFixture, type Vector } from './fixtures.js';
import type { EndpointName } from './intake-support.js';
import { DEFAULT_SECRETS } from './intake-support.js';
import { hmacOf, signStandardWebhooks, stripeV1 } from './signers.js';

/** One delivery to send: endpoint, exact body bytes, headers. */
export interface Delivery {
  readonly endpoint: EndpointName;
  readonly body: Uint8Array;
  readonly headers: Record<string, string>;
  /** Fixture file it came from. */
  readonly source: string;
}

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** `Stripe-Signature` over `body` at `nowSec`, with the configured endpoint secret (or `secret`). */
export function stripeHeaders(
  body: Uint8Array,
  nowSec: number,
  secret = DEFAULT_SECRETS.stripe,
): Record<string, string> {
  return { 'content-type': 'application/json', 'stripe-signature': `t=${nowSec},v1=${stripeV1(secret, nowSec, body)}` };
}

/** Standard Webhooks headers (`webhook-*`, or `svix-*` for the svix endpoint) signed with the endpoint secret. */
export function standardHeaders(
  endpoint: 'standard-webhooks' | 'svix',
  body: Uint8Array,
  nowSec: number,
  id: string,
): Record<string, string> {
  const prefix = endpoint === 'svix' ? 'svix' : 'webhook';
  const key = DEFAULT_SECRETS[endpoint].replace(/^whsec_/, '');
  return {
    'content-type': 'application/json',
    [`${prefix}-id`]: id,
    [`${prefix}-timestamp`]: String(nowSec),
    [`${prefix}-signature`]: signStandardWebhooks(key, id, nowSec, body),
  };
}

/** GitHub headers: `X-Hub-Signature-256` with the endpoint secret, a delivery GUID and an event name. */
export function githubHeaders(body: Uint8Array, delivery: string, event = 'ping'): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-github-delivery': delivery,
    'x-github-event': event,
    'x-hub-signature-256': `sha256=${hmacOf('sha256', DEFAULT_SECRETS.github, body, 'hex')}`,
  };
}

/** The Payme Basic-auth headers of the valid auth vector. */
export function paymeHeaders(): Record<string, string> {
  const v = readFixture('payme/auth/01-basic-auth-valid.json') as Vector;
  return { ...v.headers };
}

/** YooKassa has no signature: the test scheme checks the source address header against the allow-list fixture. */
export function yookassaHeaders(ip = '185.71.76.10'): Record<string, string> {
  return { 'content-type': 'application/json', 'x-real-ip': ip };
}

interface PayloadFixture {
  readonly raw_body?: string;
}

/** Payme RPC fixtures: the complete request examples, and the partial one (kept to prove the -32600 answer). */
export interface PaymeRpc {
  readonly source: string;
  readonly method: string;
  readonly body: Uint8Array;
  /** False for `request_example_partial` (the docs excerpt is cut before `amount`). */
  readonly complete: boolean;
}

/** Every Payme RPC fixture with a concrete request (files that only give a shape with placeholders are not sendable). */
export function paymeRpcs(): PaymeRpc[] {
  const out: PaymeRpc[] = [];
  for (const source of fixtureFiles('rpc')) {
    const f = readFixture(source) as { method: string; request_example?: unknown; request_example_partial?: unknown };
    const example = f.request_example ?? f.request_example_partial;
    if (example === undefined) continue;
    out.push({
      source,
      method: f.method,
      body: utf8(JSON.stringify(example)),
      complete: f.request_example !== undefined,
    });
  }
  return out;
}

/**
 * Every payload fixture (`*\/payloads/*.json` with a `raw_body`) as a delivery signed for `nowSec` with the
 * endpoint's configured secret, plus the valid Click vectors (Click payloads only exist as signed vectors).
 */
export function payloadDeliveries(nowSec: number): Delivery[] {
  const out: Delivery[] = [];
  for (const source of fixtureFiles('payloads')) {
    const fixture = readFixture(source) as PayloadFixture;
    if (fixture.raw_body === undefined) continue;
    const body = utf8(fixture.raw_body);
    const provider = source.split('/')[0];
    if (provider === 'stripe') out.push({ endpoint: 'stripe', body, headers: stripeHeaders(body, nowSec), source });
    else if (provider === 'standard-webhooks') {
      out.push({
        endpoint: 'standard-webhooks',
        body,
        headers: standardHeaders('standard-webhooks', body, nowSec, `msg_${randomUUID()}`),
        source,
      });
      out.push({
        endpoint: 'svix',
        body,
        headers: standardHeaders('svix', body, nowSec, `msg_${randomUUID()}`),
        source: `${source} (svix-* headers)`,
      });
    } else if (provider === 'yookassa') out.push({ endpoint: 'yookassa', body, headers: yookassaHeaders(), source });
    else throw new Error(`payload fixture of an unknown provider: ${source}`);
  }
  for (const source of fixtureFiles('signature').filter((f) => f.startsWith('click/'))) {
    const v = readFixture(source) as Vector;
    if (v.expected !== 'valid') continue;
    out.push({ endpoint: 'click', body: utf8(v.raw_body), headers: { ...v.headers }, source });
  }
  const octokit = readFixture('github/signature/02-octokit-foo-bar.json') as Vector;
  const github = utf8(octokit.raw_body);
  out.push({
    endpoint: 'github',
    body: github,
    headers: githubHeaders(github, randomUUID()),
    source: 'github/signature/02-octokit-foo-bar.json',
  });
  return out;
}

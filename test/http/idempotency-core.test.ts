import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import type { Store } from '../../packages/payonce/src/core/store.js';
import type { HttpExchange, HttpResponse } from '../../packages/payonce/src/http/http-exchange.js';
import { httpRequestKey } from '../../packages/payonce/src/http/http-request-key.js';
import {
  createIdempotencyCore,
  type IdempotencyCoreOptions,
} from '../../packages/payonce/src/http/idempotency-core.js';
import { resolveIdempotencyKeyPolicy } from '../../packages/payonce/src/http/idempotency-key-policy.js';
import { problemType } from '../../packages/payonce/src/problem/problem-details.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';

const encode = (text: string) => new TextEncoder().encode(text);
const exchange = (key: string | undefined, overrides: Partial<HttpExchange> = {}): HttpExchange => ({
  method: 'POST',
  route: '/v1/payments',
  target: '/v1/payments',
  principal: 'acct_1',
  headers: key === undefined ? {} : { 'idempotency-key': key },
  body: encode('{"amount":1}'),
  ...overrides,
});
const created = (id: number): HttpResponse => ({
  status: 201,
  headers: { 'Content-Type': 'application/json', Location: `/v1/payments/${id}`, 'X-Trace': 't' },
  body: encode(`{"id":${id}}`),
});

function setup(options: Partial<IdempotencyCoreOptions> = {}, store: Store = new MemoryStore()) {
  const clock = new ManualClock();
  const guard = new IdempotencyGuard(store, { clock, staleAfterMs: 60_000 });
  const core = createIdempotencyCore({ guard, ...options });
  let runs = 0;
  const next = async (response?: HttpResponse) => {
    runs++;
    return response ?? created(runs);
  };
  return { core, clock, guard, next, runs: () => runs };
}

describe('createIdempotencyCore', () => {
  it('stores only the chosen headers (lower-cased) and replays them with Idempotent-Replayed: true', async () => {
    const { core, next } = setup({ storedHeaders: ['content-type', 'LOCATION'] });
    const first = await core.handle(exchange('k'), () => next());
    expect(first).toMatchObject({ kind: 'executed', stored: true, response: created(1) });
    const replay = await core.handle(exchange('k'), () => next());
    expect(replay).toEqual({
      kind: 'replayed',
      response: {
        status: 201,
        headers: { 'content-type': 'application/json', location: '/v1/payments/1', 'idempotent-replayed': 'true' },
        body: encode('{"id":1}'),
      },
    });
  });

  it('passes methods it does not cover straight through, whatever the header says', async () => {
    const { core, next, runs } = setup();
    expect(core.covers('get')).toBe(false);
    for (let i = 0; i < 2; i++) {
      const result = await core.handle(exchange('"broken', { method: 'GET' }), () => next());
      expect(result).toMatchObject({ kind: 'executed', stored: false });
    }
    expect(runs()).toBe(2);
  });

  it('runs without idempotency when the route does not require a key and none is sent', async () => {
    const { core, next, runs } = setup({ requireKey: ({ route }) => route !== '/v1/optional' });
    const optional = exchange(undefined, { route: '/v1/optional' });
    await core.handle(optional, () => next());
    await core.handle(optional, () => next());
    expect(runs()).toBe(2);
    expect((await core.handle(exchange(undefined), () => next())).kind).toBe('rejected');
    expect((await core.handle({ ...optional, headers: { 'idempotency-key': '' } }, () => next())).kind).toBe(
      'rejected',
    );
    expect(runs()).toBe(2);
  });

  it('answers problems as application/problem+json with the stable type', async () => {
    const { core, next } = setup();
    const result = await core.handle(exchange(undefined), () => next());
    if (result.kind !== 'rejected') throw new Error('expected a rejection');
    expect(result.code).toBe('IDEMPOTENCY_KEY_MISSING');
    expect(result.response.headers).toEqual({ 'content-type': 'application/problem+json' });
    expect(JSON.parse(new TextDecoder().decode(result.response.body))).toEqual({
      type: problemType('IDEMPOTENCY_KEY_MISSING'),
      title: 'Idempotency-Key is missing',
      status: 400,
      detail: 'POST /v1/payments requires an Idempotency-Key request header.',
      code: 'IDEMPOTENCY_KEY_MISSING',
    });
  });

  it('releases the key when next throws, rethrowing the error', async () => {
    const { core, next, runs } = setup();
    await expect(core.handle(exchange('k'), () => Promise.reject(new Error('handler crashed')))).rejects.toThrow(
      'handler crashed',
    );
    expect((await core.handle(exchange('k'), () => next())).kind).toBe('executed');
    expect(runs()).toBe(1);
  });

  it('reports a store failure as 503 STORE_UNAVAILABLE without running the handler', async () => {
    const broken = new MemoryStore();
    broken.insertClaim = () => Promise.reject(new Error('connection refused'));
    const { core, next, runs } = setup({}, broken);
    const result = await core.handle(exchange('k'), () => next());
    expect(result).toMatchObject({ kind: 'rejected', code: 'STORE_UNAVAILABLE', response: { status: 503 } });
    // A 503 tells the client when to retry (issue 34 item 17).
    expect(result.kind === 'rejected' && result.response.headers['retry-after']).toBe('1');
    expect(runs()).toBe(0);
  });

  it('answers 409 CLAIM_LOST to a request whose claim was taken over; the taker’s response replays', async () => {
    const { core, clock, next } = setup();
    let finishSlow: () => void = () => {};
    const slow = core.handle(exchange('k'), async () => {
      await new Promise<void>((resolve) => (finishSlow = resolve));
      return created(99);
    });
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(60_000);
    const taker = await core.handle(exchange('k'), () => next());
    expect(taker).toMatchObject({ kind: 'executed', stored: true });
    finishSlow();
    expect(await slow).toMatchObject({ kind: 'rejected', code: 'CLAIM_LOST', response: { status: 409 } });
    expect(await core.handle(exchange('k'), () => next())).toMatchObject({
      kind: 'replayed',
      response: { body: encode('{"id":1}') },
    });
  });

  it('treats an expired released key as new, even with another body', async () => {
    const { core, clock, next, runs } = setup({ expiryMs: 1_000 });
    const failed = await core.handle(exchange('k'), () => next({ status: 500, headers: {}, body: encode('') }));
    expect(failed).toMatchObject({ kind: 'executed', stored: false });
    const other = exchange('k', { body: encode('{"amount":2}') });
    expect((await core.handle(other, () => next())).kind).toBe('rejected');
    clock.advance(1_001);
    expect(await core.handle(other, () => next())).toMatchObject({ kind: 'executed', stored: true });
    expect(runs()).toBe(2);
  });

  it('requires a non-empty principal from the adapter', async () => {
    const { core, next } = setup();
    await expect(core.handle(exchange('k', { principal: '' }), () => next())).rejects.toBeInstanceOf(InvalidOption);
  });
});

describe('resolveIdempotencyKeyPolicy', () => {
  it('applies the documented defaults', () => {
    const policy = resolveIdempotencyKeyPolicy();
    expect(policy).toMatchObject({
      methods: ['POST', 'PATCH'],
      storedHeaders: ['content-type', 'content-language', 'location'],
      expiryMs: 86_400_000,
      namespace: 'http',
    });
    expect(policy.requireKey({ method: 'POST', route: '/x' })).toBe(true);
  });

  it.each<[string, Parameters<typeof resolveIdempotencyKeyPolicy>[0]]>([
    ['expiryMs 0', { expiryMs: 0 }],
    ['expiryMs negative', { expiryMs: -1 }],
    ['expiryMs fractional', { expiryMs: 1.5 }],
    ['expiryMs NaN', { expiryMs: Number.NaN }],
    ['expiryMs Infinity', { expiryMs: Number.POSITIVE_INFINITY }],
    ['set-cookie stored', { storedHeaders: ['Set-Cookie'] }],
    ['bad header name', { storedHeaders: ['content type'] }],
    ['bad method', { methods: ['PO ST'] }],
    ['empty namespace', { namespace: '' }],
    ['long namespace', { namespace: 'n'.repeat(161) }],
  ])('rejects %s with InvalidOption', (_name, policy) => {
    expect(() => resolveIdempotencyKeyPolicy(policy)).toThrow(InvalidOption);
  });
});

describe('httpRequestKey', () => {
  it('fits a 255-character key and a long principal into a 64-character external id', () => {
    const key = httpRequestKey('http', 'p'.repeat(1_000), 'POST', '/v1/payments/:id', 'k'.repeat(255));
    expect(key.provider).toBe('http');
    expect(key.externalId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives every (principal, method, route, key) its own receipt, with no ambiguous joins', () => {
    const keys = [
      httpRequestKey('http', 'a', 'POST', '/r', 'k'),
      httpRequestKey('http', 'b', 'POST', '/r', 'k'),
      httpRequestKey('http', 'a', 'PATCH', '/r', 'k'),
      httpRequestKey('http', 'a', 'POST', '/s', 'k'),
      httpRequestKey('http', 'a', 'POST', '/r', 'l'),
      httpRequestKey('http', 'a|POST', '/r', 'k', ''),
      httpRequestKey('http', 'a', 'POST|/r', 'k', ''),
    ].map((key) => key.externalId);
    expect(new Set(keys).size).toBe(keys.length);
    expect(httpRequestKey('http', 'a', 'POST', '/r', 'k').equals(httpRequestKey('http', 'a', 'POST', '/r', 'k'))).toBe(
      true,
    );
  });
});

describe('createIdempotencyCore: a corrupted stored receipt (issue 11 item 4)', () => {
  it('a receipt whose fingerprint was set to NULL: 500 RECEIPT_CORRUPTED, not a replay (201) and not a 422', async () => {
    const store = new MemoryStore();
    const { core, next, runs } = setup({}, store);
    expect((await core.handle(exchange('k'), () => next())).kind).toBe('executed');
    const providers = (store as unknown as { providers: Map<string, Map<string, { fingerprint: string | null }>> })
      .providers;
    for (const receipts of providers.values()) for (const entry of receipts.values()) entry.fingerprint = null;
    const other = await core.handle(exchange('k', { body: encode('{"amount":2}') }), () => next());
    expect(other.kind).toBe('rejected');
    if (other.kind !== 'rejected') return;
    expect(other.code).toBe('RECEIPT_CORRUPTED');
    expect(other.response.status).toBe(500);
    expect(JSON.parse(new TextDecoder().decode(other.response.body))).toMatchObject({
      type: problemType('RECEIPT_CORRUPTED'),
      status: 500,
    });
    expect(runs()).toBe(1);
  });
});

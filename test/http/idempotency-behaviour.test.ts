import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import type { Store } from '../../packages/payonce/src/core/store.js';
import { httpRequestKey } from '../../packages/payonce/src/http/http-request-key.js';
import { type ProblemCode, STATUS_BY_CODE } from '../../packages/payonce/src/http/problem-status.js';
import { canonicalJsonFingerprint } from '../../packages/payonce/src/http/request-fingerprint.js';
import { problemType } from '../../packages/payonce/src/problem/problem-details.js';
import type { BackendName, TestBackend } from '../contract/backend.js';
import { backendFactories, backendsFromEnv } from '../contract/backends/index.js';
import { paymentBody, post, type Reply } from './support/client.js';
import { type AdapterName, type RunningServer, startExample } from './support/example-servers.js';
import { FakeProvider } from './support/fake-provider.js';

const DAY_MS = 86_400_000;
const ADAPTERS: AdapterName[] = ['express', 'fastify', 'hono'];
/**
 * Backends of the HTTP matrix: `PAYONCE_HTTP_BACKENDS` (comma-separated), else the contract suite's selection
 * (`PAYONCE_BACKENDS`, default all: memory, SQLite, PostgreSQL, MariaDB, Redis).
 */
const BACKENDS: BackendName[] = process.env.PAYONCE_HTTP_BACKENDS
  ? backendsFromEnv({ PAYONCE_BACKENDS: process.env.PAYONCE_HTTP_BACKENDS })
  : backendsFromEnv();

interface World {
  readonly adapter: AdapterName;
  readonly store: Store;
  readonly clock: ManualClock;
  readonly provider: FakeProvider;
  /** The example with the default policy (raw-body fingerprint). */
  readonly raw: RunningServer;
  /** The same example with `canonicalJsonFingerprint`. */
  readonly canonical: RunningServer;
}

const fresh = (label: string) => `${label}-${randomUUID()}`;

function expectProblem(reply: Reply, code: ProblemCode): void {
  expect(reply.status).toBe(STATUS_BY_CODE[code]);
  expect(reply.headers.get('content-type')).toBe('application/problem+json');
  expect(reply.json()).toMatchObject({ type: problemType(code), status: STATUS_BY_CODE[code], code });
  expect(reply.headers.get('idempotent-replayed')).toBeNull();
}

function expectReplayOf(replay: Reply, first: Reply): void {
  expect(replay.status).toBe(first.status);
  expect(replay.bytes).toEqual(first.bytes);
  expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
  expect(replay.headers.get('location')).toBe(first.headers.get('location'));
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
}

/** Waits until `settled()` is true, failing after ~5 s. */
async function until(settled: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !settled(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(settled()).toBe(true);
}

/** THE behaviour table: every row runs against every adapter on every backend, over real loopback HTTP. */
const behaviours: Array<[string, (w: World) => Promise<void>]> = [
  [
    'missing key on a route that requires one → 400 IDEMPOTENCY_KEY_MISSING, handler not run',
    async ({ raw, provider }) => {
      const ref = fresh('missing');
      expectProblem(await post(`${raw.url}/v1/payments`, { body: paymentBody(ref) }), 'IDEMPOTENCY_KEY_MISSING');
      expect(provider.count(ref)).toBe(0);
    },
  ],
  [
    'malformed key (empty, whitespace, too long, control character, bad sf-string) → 400 IDEMPOTENCY_KEY_INVALID',
    async ({ raw, provider }) => {
      const ref = fresh('malformed');
      const malformed = [
        '',
        '"   "',
        '" padded"',
        '"padded "',
        'a'.repeat(256),
        `"${'a'.repeat(256)}"`,
        'tab\there',
        '"unterminated',
        '"bad\\escape"',
        '"key" trailing',
        'one, two',
      ];
      for (const key of malformed) {
        const reply = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
        expectProblem(reply, 'IDEMPOTENCY_KEY_INVALID');
      }
      expect(provider.count(ref)).toBe(0);
    },
  ],
  [
    'accepted forms: sf-string with escapes and parameters, Stripe bare token, 255 characters; both forms name one key',
    async ({ raw, provider }) => {
      for (const [key, same] of [
        [`"${'k'.repeat(255)}"`, 'k'.repeat(255)],
        [`"quo\\"ted\\\\key";v=1`, null],
        [fresh('bare-token'), null],
      ] as const) {
        const ref = fresh('forms');
        const first = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
        expect(first.status).toBe(201);
        expect(first.headers.get('idempotent-replayed')).toBeNull();
        const again = await post(`${raw.url}/v1/payments`, { key: same ?? key, body: paymentBody(ref) });
        expectReplayOf(again, first);
        expect(provider.count(ref)).toBe(1);
      }
    },
  ],
  [
    'completed → stored status, chosen headers and body bytes replayed with Idempotent-Replayed: true',
    async ({ raw, provider }) => {
      const ref = fresh('replay');
      const key = fresh('key');
      const first = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
      expect(first.status).toBe(201);
      expect(first.headers.get('location')).toMatch(/^\/v1\/payments\/pay_/);
      expect(first.headers.get('x-request-id')).not.toBeNull();
      for (let i = 0; i < 3; i++) {
        const replay = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
        expectReplayOf(replay, first);
        expect(replay.headers.get('x-request-id')).toBeNull(); // not among the stored headers
      }
      expect(provider.count(ref)).toBe(1);
    },
  ],
  [
    'a stored 4xx (400 bad JSON, 422 bad amount) is replayed as that 4xx, not 200, and the handler does not rerun',
    async ({ raw }) => {
      for (const [body, status] of [
        ['{"amount": 19', 400],
        [paymentBody(fresh('negative'), { amount: -5 }), 422],
      ] as const) {
        const key = fresh('key');
        const first = await post(`${raw.url}/v1/payments`, { key, body });
        expect(first.status).toBe(status);
        expect(first.headers.get('idempotent-replayed')).toBeNull();
        const replay = await post(`${raw.url}/v1/payments`, { key, body });
        expectReplayOf(replay, first);
        expect(replay.headers.get('content-type')).toBe('application/problem+json');
      }
    },
  ],
  [
    'same key, different body → 422 PAYLOAD_MISMATCH, nothing run; the original still replays',
    async ({ raw, provider }) => {
      const ref = fresh('mismatch');
      const key = fresh('key');
      const first = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
      expect(first.status).toBe(201);
      const other = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref, { amount: 1 }) });
      expectProblem(other, 'PAYLOAD_MISMATCH');
      expectReplayOf(await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) }), first);
      expect(provider.count(ref)).toBe(1);
    },
  ],
  [
    'while the first runs: same body → 409 with Retry-After, other body → 422; neither touches the owner’s claim',
    async ({ raw, provider, store }) => {
      const ref = fresh('running');
      const key = fresh('key');
      let open: () => void = () => {};
      provider.script(ref, { kind: 'gate', until: new Promise<void>((resolve) => (open = resolve)) });
      const called = provider.whenCalled(ref);
      const owner = post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
      await called;
      const busy = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
      expectProblem(busy, 'REQUEST_IN_PROGRESS');
      expect(busy.headers.get('retry-after')).toBe('5'); // maxRetryAfterMs 5 000 ms, in whole seconds
      expectProblem(
        await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref, { amount: 7 }) }),
        'PAYLOAD_MISMATCH',
      );
      const receipt = await store.find(httpRequestKey('http', 'acct_acme', 'POST', '/v1/payments', key));
      expect(receipt).toMatchObject({ status: 'processing', attempts: 1 });
      open();
      const first = await owner;
      expect(first.status).toBe(201);
      expectReplayOf(await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) }), first);
      expect(provider.count(ref)).toBe(1);
    },
  ],
  [
    'keys are scoped by principal: the same key from another account runs its own request',
    async ({ raw, provider }) => {
      const ref = fresh('principal');
      const key = fresh('key');
      const acme = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
      const globex = await post(`${raw.url}/v1/payments`, { key, token: 'sk_test_globex', body: paymentBody(ref) });
      expect([acme.status, globex.status]).toEqual([201, 201]);
      expect(globex.headers.get('idempotent-replayed')).toBeNull();
      expect(globex.json().id).not.toBe(acme.json().id);
      expect(provider.calls.filter((c) => c.reference === ref).map((c) => c.account)).toEqual([
        'acct_acme',
        'acct_globex',
      ]);
      const again = await post(`${raw.url}/v1/payments`, { key, token: 'sk_test_globex', body: paymentBody(ref) });
      expectReplayOf(again, globex);
    },
  ],
  [
    'keys are scoped by route pattern; within a pattern the concrete path is fingerprinted: another :id → 422',
    async ({ raw, canonical, provider, store }) => {
      const ref = fresh('route');
      const key = fresh('key');
      const payment = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
      const refund = await post(`${raw.url}/v1/payments/pay_1/refunds`, { key, body: paymentBody(ref) });
      expect([payment.status, refund.status]).toEqual([201, 201]);
      expect(refund.headers.get('idempotent-replayed')).toBeNull();
      expect(provider.count(ref)).toBe(2);
      // One key, same body, another concrete path of the same pattern: a different request (SPEC §4 fingerprint =
      // method, path, body), never a replay of pay_1's answer — with either fingerprint, on every adapter.
      for (const server of [raw, canonical]) {
        const other = fresh('key');
        expect(
          (await post(`${server.url}/v1/payments/pay_1/refunds`, { key: other, body: paymentBody(ref) })).status,
        ).toBe(201);
        const mismatch = await post(`${server.url}/v1/payments/pay_2/refunds`, { key: other, body: paymentBody(ref) });
        expectProblem(mismatch, 'PAYLOAD_MISMATCH');
      }
      expect(provider.count(ref)).toBe(4);
      expectReplayOf(await post(`${raw.url}/v1/payments/pay_1/refunds`, { key, body: paymentBody(ref) }), refund);
      const refundKey = httpRequestKey('http', 'acct_acme', 'POST', '/v1/payments/:id/refunds', key);
      expect(await store.find(refundKey)).toMatchObject({ status: 'completed', attempts: 1 });
    },
  ],
  [
    'a 5xx response releases the key: the retry runs the handler again, then its 2xx replays',
    async ({ raw, provider }) => {
      const ref = fresh('5xx');
      const key = fresh('key');
      provider.script(ref, { kind: 'unavailable' }, { kind: 'unavailable' });
      expect((await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) })).status).toBe(503);
      expect((await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) })).status).toBe(503);
      const ok = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
      expect(ok.status).toBe(201);
      expect(ok.headers.get('idempotent-replayed')).toBeNull();
      expectReplayOf(await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) }), ok);
      expect(provider.count(ref)).toBe(3);
    },
  ],
  [
    'a thrown error (framework 500) releases the key; a released key stays bound to its body (422)',
    async ({ raw, provider }) => {
      const ref = fresh('throw');
      const key = fresh('key');
      provider.script(ref, { kind: 'throw' });
      const failed = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
      expect(failed.status).toBe(500);
      expectProblem(
        await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref, { amount: 5 }) }),
        'PAYLOAD_MISMATCH',
      );
      const ok = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
      expect(ok.status).toBe(201);
      expect(provider.count(ref)).toBe(2);
    },
  ],
  [
    '20 parallel requests with one key → the route handler runs once; the others get 409, later ones replay',
    async ({ raw, provider }) => {
      const ref = fresh('parallel');
      const key = fresh('key');
      let open: () => void = () => {};
      provider.script(ref, { kind: 'gate', until: new Promise<void>((resolve) => (open = resolve)) });
      const replies: Reply[] = [];
      const all = Array.from({ length: 20 }, () =>
        post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) }).then((reply) => {
          replies.push(reply);
          return reply;
        }),
      );
      await until(() => replies.length === 19 && provider.count(ref) === 1);
      open();
      const statuses = (await Promise.all(all)).map((reply) => reply.status).sort();
      expect(statuses).toEqual([201, ...Array<number>(19).fill(409)]);
      expect(provider.count(ref)).toBe(1);
      const owner = (await Promise.all(all)).find((reply) => reply.status === 201)!;
      expectReplayOf(await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) }), owner);
    },
  ],
  [
    'raw-body fingerprint (default): reordered members or other whitespace → 422; reordered array → 422',
    async ({ raw, provider }) => {
      const ref = fresh('raw-fp');
      const key = fresh('key');
      const body = `{"amount":1999,"currency":"EUR","reference":"${ref}","tags":["a","b"]}`;
      expect((await post(`${raw.url}/v1/payments`, { key, body })).status).toBe(201);
      const reordered = `{ "tags": ["a", "b"], "reference": "${ref}", "currency": "EUR", "amount": 1999 }`;
      expectProblem(await post(`${raw.url}/v1/payments`, { key, body: reordered }), 'PAYLOAD_MISMATCH');
      const arrayOrder = body.replace('["a","b"]', '["b","a"]');
      expectProblem(await post(`${raw.url}/v1/payments`, { key, body: arrayOrder }), 'PAYLOAD_MISMATCH');
      expect(provider.count(ref)).toBe(1);
    },
  ],
  [
    'canonical-JSON fingerprint (opt-in): reordered members and whitespace replay; reordered array → 422',
    async ({ canonical, provider }) => {
      const ref = fresh('canonical-fp');
      const key = fresh('key');
      const body = `{"amount":1999,"currency":"EUR","reference":"${ref}","tags":["a","b"]}`;
      const first = await post(`${canonical.url}/v1/payments`, { key, body });
      expect(first.status).toBe(201);
      const reordered = `{ "tags": ["a", "b"], "reference": "${ref}", "currency": "EUR", "amount": 1999 }`;
      expectReplayOf(await post(`${canonical.url}/v1/payments`, { key, body: reordered }), first);
      const arrayOrder = body.replace('["a","b"]', '["b","a"]');
      expectProblem(await post(`${canonical.url}/v1/payments`, { key, body: arrayOrder }), 'PAYLOAD_MISMATCH');
      const amount = body.replace('1999', '1999.0');
      expectProblem(await post(`${canonical.url}/v1/payments`, { key, body: amount }), 'PAYLOAD_MISMATCH');
      expect(provider.count(ref)).toBe(1);
    },
  ],
  [
    'expiry (24 h): a finished key replays until then, runs anew after (even with another body); purge removes it',
    async ({ raw, provider, store, clock }) => {
      const ref = fresh('expiry');
      const key = fresh('key');
      const first = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) });
      clock.advance(DAY_MS); // age == expiry: not older than it yet
      expectReplayOf(await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref) }), first);
      clock.advance(1);
      const renewed = await post(`${raw.url}/v1/payments`, { key, body: paymentBody(ref, { amount: 5 }) });
      expect(renewed.status).toBe(201);
      expect(renewed.headers.get('idempotent-replayed')).toBeNull();
      expect(provider.count(ref)).toBe(2);
      const storeKey = httpRequestKey('http', 'acct_acme', 'POST', '/v1/payments', key);
      expect(await store.find(storeKey)).toMatchObject({ status: 'completed' });
      clock.advance(DAY_MS);
      expect(await store.find(storeKey)).not.toBeNull(); // purge keeps a key of exactly the expiry age
      await raw.idempotency.purge();
      expect(await store.find(storeKey)).not.toBeNull();
      clock.advance(1);
      expect(await raw.idempotency.purge()).toBeGreaterThanOrEqual(1);
      expect(await store.find(storeKey)).toBeNull();
    },
  ],
];

for (const backendName of BACKENDS) {
  for (const adapter of ADAPTERS) {
    describe(`Idempotency-Key over HTTP: ${adapter} on ${backendName}`, () => {
      let backend: TestBackend;
      let world: World;

      beforeAll(async () => {
        backend = await (await backendFactories[backendName]())();
        const store = await backend.open();
        const clock = new ManualClock();
        const provider = new FakeProvider();
        const deps = {
          charge: provider.charge,
          accounts: { sk_test_acme: 'acct_acme', sk_test_globex: 'acct_globex' },
        };
        const raw = await startExample[adapter]({ ...deps, guard: new IdempotencyGuard(store, { clock }) });
        const canonical = await startExample[adapter]({
          ...deps,
          guard: new IdempotencyGuard(store, { clock }),
          policy: { fingerprint: canonicalJsonFingerprint },
        });
        world = { adapter, store, clock, provider, raw, canonical };
      });

      afterAll(async () => {
        await world?.raw.close();
        await world?.canonical.close();
        await backend?.cleanup();
      });

      for (const [name, run] of behaviours) it(name, () => run(world));
    });
  }
}

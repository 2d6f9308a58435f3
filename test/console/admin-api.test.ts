import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { TokenBucket } from '../../packages/payonce/src/core/token-bucket.js';
import { AdminSessions } from '../../packages/service/src/admin/admin-auth.js';
import { type Harness, orderAndCheckout, startHarness, untilFulfilled } from '../service/service-harness.js';
import { admin } from './admin-client.js';
import { openApiViolations } from './openapi-check.js';

const TOKEN = `tok_${randomUUID().replace(/-/g, '')}`;

let h: Harness;
let base: string;

/** Every log line the service wrote (pino JSON). */
const logs: string[] = [];

beforeAll(async () => {
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  h = await startHarness({ adminToken: TOKEN, logger, trustProxy: 'loopback' });
  base = h.service.url;
});
afterAll(async () => {
  await h?.close();
});

type OpenApi = { openapi: string; paths: Record<string, Record<string, unknown>> };

/** Every `/admin/api` route the app has, as `METHOD /path/{param}`, read from fastify's printed route tree. */
function adminRoutes(): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of h.service.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const path = stack.join('').replace(/:([A-Za-z]+)/g, '{$1}');
    if (!path.startsWith('/admin/api/')) continue;
    for (const method of (match[3] ?? '').split(', ')) if (method !== 'HEAD') routes.push(`${method} ${path}`);
  }
  return routes.sort();
}

describe('admin API: OpenAPI document', () => {
  it('is a valid OpenAPI 3.0 document that lists every admin route, each POST with a required Idempotency-Key', async () => {
    const answer = await admin<OpenApi>(base, 'GET', '/admin/api/openapi.json', { token: TOKEN });
    expect(answer.status).toBe(200);
    expect(openApiViolations(answer.body)).toEqual([]);
    const documented = Object.entries(answer.body.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const routes = adminRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(17);
    expect(documented).toEqual(routes);
    for (const [path, ops] of Object.entries(answer.body.paths)) {
      const post = ops.post as { parameters?: { name: string; in: string; required?: boolean }[] } | undefined;
      if (!post) continue;
      expect(
        post.parameters?.find((p) => p.name === 'Idempotency-Key'),
        path,
      ).toMatchObject({ in: 'header', required: true });
    }
  });

  it('the structural check catches a broken document (it can fail)', () => {
    expect(
      openApiViolations({
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        paths: { '/x/{id}': { get: { responses: {} } } },
      }),
    ).toEqual(['GET /x/{id}: no path parameter for {id}', 'GET /x/{id}: needs at least one response']);
  });
});

describe('admin API: authentication', () => {
  it('answers 401 ADMIN_TOKEN_INVALID on every admin route without the token, and with a wrong one', async () => {
    const routes = adminRoutes();
    for (const route of routes) {
      const [method, template] = route.split(' ') as ['GET' | 'POST', string];
      const path = template.replace(/\{[^}]+\}/g, 'x');
      for (const [i, token] of [null, 'wrong', `${TOKEN}x`, TOKEN.slice(0, -1)].entries()) {
        // Each wrong token from its own client address (the loopback proxy is trusted), so the per-client
        // throttle of wrong tokens (admin-auth-throttle.test.ts) does not answer 429 first.
        const answer = await admin<{ code: string }>(base, method, path, {
          token,
          body: method === 'POST' ? {} : undefined,
          headers: { 'x-forwarded-for': `10.0.${routes.indexOf(route)}.${i}` },
        });
        expect(answer.status, `${route} with ${token === null ? 'no token' : 'a wrong token'}`).toBe(401);
        expect(answer.body.code).toBe('ADMIN_TOKEN_INVALID');
        expect(answer.headers.get('content-type')).toContain('application/problem+json');
      }
    }
  });

  it('compares the token through per-process HMAC digests: only the exact token passes, whatever its length', () => {
    const sessions = new AdminSessions('s3cret-token', { now: () => 0 });
    expect(sessions.checkToken('s3cret-token')).toBe(true);
    for (const wrong of [
      '',
      's',
      's3cret-toke',
      's3cret-token ',
      's3cret-tokenX',
      'S3CRET-TOKEN',
      'x'.repeat(10_000),
    ]) {
      expect(sessions.checkToken(wrong), JSON.stringify(wrong.slice(0, 20))).toBe(false);
    }
  });

  it('without a session every console page is the login page (no data); a wrong token cannot log in', async () => {
    for (const path of ['/console', '/console/', '/console/login']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).toBe(200);
      const html = await response.text();
      expect(html).toContain('id="login-form"');
      expect(html).not.toContain('<payonce-console>');
      expect(html).not.toContain(TOKEN);
    }
    const refused = await fetch(`${base}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'wrong' }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('set-cookie')).toBeNull();
  });

  it('logs in into an HttpOnly SameSite=Strict cookie; POSTs need the CSRF token; logout ends the session', async () => {
    const login = await fetch(`${base}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: TOKEN, operator: 'alice' }),
    });
    expect(login.status).toBe(200);
    const loginText = await login.text();
    expect(loginText).not.toContain(TOKEN);
    const setCookie = login.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^payonce_console=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Strict/);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).not.toMatch(/Secure/); // plain HTTP on loopback; Secure is set over HTTPS
    expect(setCookie).not.toContain(TOKEN);
    const cookie = setCookie.split(';')[0] ?? '';

    const page = await fetch(`${base}/console/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<payonce-console>');

    const session = await admin<{ operator: string; csrfToken: string }>(base, 'GET', '/admin/api/session', {
      headers: { cookie },
    });
    expect(session.status).toBe(200);
    expect(session.body.operator).toBe('alice');
    const csrf = session.body.csrfToken;
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const path = '/admin/api/jobs/no-such-job/rerun';
    const noCsrf = await admin<{ code: string }>(base, 'POST', path, { headers: { cookie }, body: {} });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('ADMIN_CSRF_INVALID');
    const wrongCsrf = await admin<{ code: string }>(base, 'POST', path, {
      headers: { cookie, 'x-csrf-token': `${csrf}x` },
      body: {},
    });
    expect(wrongCsrf.status).toBe(403);
    const withCsrf = await admin<{ code: string }>(base, 'POST', path, {
      headers: { cookie, 'x-csrf-token': csrf },
      body: {},
    });
    expect(withCsrf.status).toBe(404);
    expect(withCsrf.body.code).toBe('JOB_NOT_FOUND');
    const noKey = await admin<{ code: string }>(base, 'POST', path, {
      headers: { cookie, 'x-csrf-token': csrf },
      body: {},
      key: null,
    });
    expect(noKey.status).toBe(400);
    expect(noKey.body.code).toBe('IDEMPOTENCY_KEY_MISSING');

    const logoutNoCsrf = await fetch(`${base}/console/logout`, { method: 'POST', headers: { cookie } });
    expect(logoutNoCsrf.status).toBe(403);
    const logout = await fetch(`${base}/console/logout`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } });
    expect(logout.status).toBe(204);
    expect(logout.headers.get('set-cookie')).toMatch(/payonce_console=;/);
    expect((await admin(base, 'GET', '/admin/api/overview', { headers: { cookie } })).status).toBe(401);
  });
});

describe('admin API: reads and actions', () => {
  it('lists a stuck claim, releases it by compare-and-set, replays the answer for the same key and refuses a second release', async () => {
    const ctx = h.service.context;
    const externalId = `evt_stuck_${randomUUID()}`;
    const key = new RequestKey('stripe', externalId);
    await ctx.intakeGuard.store.insertClaim({ key, nowMs: ctx.clock.now() - 600_000, fingerprint: null });
    const fresh = `evt_fresh_${randomUUID()}`;
    await ctx.intakeGuard.store.insertClaim({
      key: new RequestKey('stripe', fresh),
      nowMs: ctx.clock.now(),
      fingerprint: null,
    });

    const stuck = await admin<{ items: { externalId: string; stuck: boolean; attempts: number }[] }>(
      base,
      'GET',
      '/admin/api/receipts?stuck=true&limit=200',
      { token: TOKEN },
    );
    expect(stuck.status).toBe(200);
    expect(stuck.body.items.map((r) => r.externalId)).toContain(externalId);
    expect(stuck.body.items.map((r) => r.externalId)).not.toContain(fresh);

    const keyOfRelease = randomUUID();
    const body = { provider: 'stripe', externalId, expectedAttempts: 1 };
    const released = await admin<{ result: { receipt: { status: string; attempts: number } } }>(
      base,
      'POST',
      '/admin/api/receipts/release',
      { token: TOKEN, body, key: keyOfRelease, headers: { 'x-operator': 'bob' } },
    );
    expect(released.status).toBe(200);
    expect(released.body.result.receipt).toMatchObject({ status: 'failed', attempts: 2 });
    const receipt = await ctx.intakeGuard.store.find(key);
    expect(receipt).toMatchObject({ status: 'failed', attempts: 2 });
    expect(receipt?.error).toContain('released by bob');

    const replayed = await admin(base, 'POST', '/admin/api/receipts/release', {
      token: TOKEN,
      body,
      key: keyOfRelease,
      headers: { 'x-operator': 'bob' },
    });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');

    const again = await admin<{ code: string }>(base, 'POST', '/admin/api/receipts/release', { token: TOKEN, body });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CLAIM_NOT_STALE');
    const notStale = await admin<{ code: string; detail: string }>(base, 'POST', '/admin/api/receipts/release', {
      token: TOKEN,
      body: { provider: 'stripe', externalId: fresh, expectedAttempts: 1 },
    });
    expect(notStale.status).toBe(409);
    expect(notStale.body.detail).toMatch(/stale after 30000 ms/);

    const journal = await admin<{ items: { action: string; actor: string; outcome: string; target: string }[] }>(
      base,
      'GET',
      '/admin/api/actions?action=release-claim',
      { token: TOKEN },
    );
    const mine = journal.body.items.filter((a) => a.target === `receipt:stripe/${externalId}`);
    expect(mine.map((a) => `${a.actor}:${a.outcome}`)).toEqual(['operator:refused', 'bob:done']);
  });

  it('reruns a dead job once (a second rerun is refused) without a second fulfilment', async () => {
    const { orderId } = await orderAndCheckout(base);
    await untilFulfilled(base, orderId);
    const db = h.service.context.store.db as never as import('kysely').Kysely<
      import('../../packages/service/src/admin/admin-tables.js').AdminDatabase
    >;
    const job = await db
      .selectFrom('payonce_outbox')
      .selectAll()
      .where('dedupe_key', '=', `order:${orderId}`)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('payonce_outbox')
      .set({ status: 'dead', last_error: 'simulated: lease lost' })
      .where('id', '=', job.id)
      .execute();
    const first = await admin<{ result: { job: { status: string } } }>(
      base,
      'POST',
      `/admin/api/jobs/${job.id}/rerun`,
      { token: TOKEN, body: {} },
    );
    expect(first.status).toBe(200);
    expect(first.body.result.job.status).toBe('queued');
    const second = await admin<{ code: string }>(base, 'POST', `/admin/api/jobs/${job.id}/rerun`, {
      token: TOKEN,
      body: {},
    });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('JOB_NOT_DEAD');
    const view = await untilFulfilled(base, orderId);
    expect(view.fulfilments).toHaveLength(1);
  });

  it('paginates with opaque cursors (pages add up to the whole list) and refuses a forged one', async () => {
    await orderAndCheckout(base);
    const all = await admin<{ items: { externalId: string }[] }>(base, 'GET', '/admin/api/receipts?limit=200', {
      token: TOKEN,
    });
    expect(all.body.items.length).toBeGreaterThan(2);
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { body: { items: { externalId: string }[]; nextCursor: string | null } } = await admin(
        base,
        'GET',
        `/admin/api/receipts?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { token: TOKEN },
      );
      seen.push(...page.body.items.map((r) => r.externalId));
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual(all.body.items.map((r) => r.externalId));
    const firstPage = await admin<{ items: { id: string }[]; nextCursor: string | null }>(
      base,
      'GET',
      '/admin/api/orders?limit=1',
      { token: TOKEN },
    );
    expect(firstPage.status).toBe(200);
    expect(firstPage.body.items).toHaveLength(1);
    expect(firstPage.body.nextCursor).not.toBeNull();
    const next = await admin<{ items: { id: string }[] }>(
      base,
      'GET',
      `/admin/api/orders?limit=1&cursor=${firstPage.body.nextCursor}`,
      { token: TOKEN },
    );
    expect(next.body.items[0]?.id).not.toBe(firstPage.body.items[0]?.id);
    const forged = await admin<{ code: string }>(base, 'GET', '/admin/api/deliveries?cursor=bm9wZQ', { token: TOKEN });
    expect(forged.status).toBe(400);
    expect(forged.body.code).toBe('ADMIN_QUERY_INVALID');
    const badFilter = await admin<{ code: string }>(base, 'GET', '/admin/api/jobs?status=zombie', { token: TOKEN });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.code).toBe('ADMIN_QUERY_INVALID');
  });
});

describe('admin API: replay rate limit and logs', () => {
  it('the token bucket takes all-or-nothing and says how long to wait', () => {
    let now = 0;
    const bucket = new TokenBucket(3, 2, { now: () => now });
    expect(bucket.take(2)).toBe(0);
    expect(bucket.take(2)).toBe(500); // 1 left, 1 more needed at 2/s
    now += 500;
    expect(bucket.take(2)).toBe(0);
    expect(bucket.take(1)).toBe(500);
  });

  it('a range replay beyond the rate limit is refused 429 with Retry-After and sends nothing', async () => {
    const { default: Fastify } = await import('fastify');
    const { registerAdminConsole, replayPartsOf } = await import('../../packages/service/src/admin/admin-console.js');
    const { webhookEndpoints } = await import('../../packages/service/src/webhook-endpoints.js');
    const { installProblemHandlers } = await import('../../packages/service/src/http-edge.js');
    const ctx = h.service.context;
    const app = Fastify();
    installProblemHandlers(app, ctx.logger);
    await registerAdminConsole(app, ctx, {
      adminToken: TOKEN,
      replay: replayPartsOf(ctx, webhookEndpoints(ctx, {})),
      providerAvailable: true,
      replayBurst: 1,
      replayPerSecond: 0.01,
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const filter = { decision: 'new', outcome: 'completed' };
      const before = (
        await admin<{ items: unknown[] }>(url, 'GET', '/admin/api/deliveries?limit=200', { token: TOKEN })
      ).body.items.length;
      const one = await admin<{ result: { considered: number } }>(url, 'POST', '/admin/api/deliveries/replay', {
        token: TOKEN,
        body: { filter, limit: 1, dryRun: false },
      });
      expect(one.status).toBe(200);
      expect(one.body.result.considered).toBe(1);
      const limited = await admin<{ code: string }>(url, 'POST', '/admin/api/deliveries/replay', {
        token: TOKEN,
        body: { filter, limit: 1, dryRun: false },
      });
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('ADMIN_RATE_LIMITED');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const dry = await admin(url, 'POST', '/admin/api/deliveries/replay', {
        token: TOKEN,
        body: { filter, limit: 1, dryRun: true },
      });
      expect(dry.status).toBe(200); // a dry run is never limited
      const after = (await admin<{ items: unknown[] }>(url, 'GET', '/admin/api/deliveries?limit=200', { token: TOKEN }))
        .body.items.length;
      expect(after).toBe(before + 1);
    } finally {
      await app.close();
    }
  });

  it('never writes the admin token into a log line, while logins and actions are logged', () => {
    const all = logs.join('');
    expect(all).toContain('console login');
    expect(all).toContain('operator action');
    expect(all).not.toContain(TOKEN);
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { type Harness, startHarness } from '../service/service-harness.js';
import { admin } from './admin-client.js';

const TOKEN = randomBytes(32).toString('base64url');

/** A console login from `client` (the address the trusted loopback proxy forwards). */
function login(base: string, token: string, client: string): Promise<Response> {
  return fetch(`${base}/console/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
    body: JSON.stringify({ token, operator: 'ops-placeholder' }),
  });
}

describe('admin token brute-force protection (per client, bearer and console login)', () => {
  let h: Harness;
  let base: string;
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  beforeAll(async () => {
    h = await startHarness({ adminToken: TOKEN, clock, trustProxy: 'loopback', worker: false });
    base = h.service.url;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers 429 ADMIN_AUTH_THROTTLED with Retry-After after 10 wrong bearer tokens, even for the right one, until it refills', async () => {
    const client = { 'x-forwarded-for': '192.0.2.10' };
    for (let i = 0; i < 10; i++) {
      const wrong = await admin<{ code: string }>(base, 'GET', '/admin/api/overview', {
        token: `wrong-${i}`,
        headers: client,
      });
      expect(wrong.status, `wrong token ${i + 1}`).toBe(401);
    }
    const throttled = await admin<{ code: string; status: number }>(base, 'GET', '/admin/api/overview', {
      token: 'wrong-again',
      headers: client,
    });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('content-type')).toContain('application/problem+json');
    expect(throttled.body).toMatchObject({ code: 'ADMIN_AUTH_THROTTLED', status: 429 });
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    const right = await admin(base, 'GET', '/admin/api/overview', { token: TOKEN, headers: client });
    expect(right.status).toBe(429);
    expect((await login(base, TOKEN, '192.0.2.10')).status).toBe(429);

    const other = await admin(base, 'GET', '/admin/api/overview', {
      token: TOKEN,
      headers: { 'x-forwarded-for': '192.0.2.11' },
    });
    expect(other.status).toBe(200);

    clock.advance(retryAfter * 1000);
    expect((await admin(base, 'GET', '/admin/api/overview', { token: TOKEN, headers: client })).status).toBe(200);
  });

  it('300 wrong console logins from one client: 10 are checked (401), the other 290 are 429 and never logged in', async () => {
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const answer = await login(base, `wrong-${i}`, '198.51.100.20');
      expect(answer.headers.get('set-cookie')).toBeNull();
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: 10, 429: 290 });
    const refused = await login(base, TOKEN, '198.51.100.20');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

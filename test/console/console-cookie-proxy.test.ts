import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { resolveServiceConfig } from '../../packages/service/src/service-config.js';
import { type Harness, startHarness } from '../service/service-harness.js';

const TOKEN = randomBytes(32).toString('base64url');

/** The `Set-Cookie` of a console login sent with `headers`. */
async function loginCookie(base: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${base}/console/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ token: TOKEN, operator: 'ops-placeholder' }),
  });
  expect(response.status).toBe(200);
  return response.headers.get('set-cookie') ?? '';
}

describe('console session cookie behind a TLS proxy', () => {
  let trusting: Harness;
  let plain: Harness;
  beforeAll(async () => {
    trusting = await startHarness({ adminToken: TOKEN, trustProxy: '127.0.0.1/8, ::1', worker: false });
    plain = await startHarness({ adminToken: TOKEN, worker: false });
  });
  afterAll(async () => {
    await trusting?.close();
    await plain?.close();
  });

  it('is Secure when a trusted proxy says the request came over https, and then only', async () => {
    const secure = await loginCookie(trusting.service.url, { 'x-forwarded-proto': 'https' });
    expect(secure).toMatch(/^payonce_console=[A-Za-z0-9_-]{43};/);
    expect(secure).toMatch(/; Secure/);
    expect(secure).toMatch(/; HttpOnly/);
    expect(await loginCookie(trusting.service.url, { 'x-forwarded-proto': 'http' })).not.toMatch(/Secure/);
    for (const proto of ['HTTPS', 'Https']) {
      expect(await loginCookie(trusting.service.url, { 'x-forwarded-proto': proto }), proto).toMatch(/; Secure/);
    }
    expect(await loginCookie(trusting.service.url, {})).not.toMatch(/Secure/);
  });

  it('ignores X-Forwarded-Proto from a client that is not a trusted proxy', async () => {
    expect(await loginCookie(plain.service.url, { 'x-forwarded-proto': 'https' })).not.toMatch(/Secure/);
  });

  it('refuses a trustProxy entry that is not an address, a CIDR range or a named range', () => {
    for (const bad of ['*', 'true', 'proxy.example', '10.0.0.0/33', '::1/129']) {
      expect(() => resolveServiceConfig({ trustProxy: bad }), String(bad)).toThrow(InvalidOption);
    }
    expect(resolveServiceConfig({ trustProxy: ' 10.0.0.0/8 , loopback ,::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      'loopback',
      '::1',
    ]);
    expect(resolveServiceConfig({}).trustProxy).toBeNull();
  });
});

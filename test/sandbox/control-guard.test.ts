import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import { SANDBOX_API_KEY } from '../../packages/sandbox/src/wire/api-key.js';

// Issue #34 item 13: a web page must not drive the sandbox's controls through the user's browser: no cross-site
// text/plain or form POST (415), no foreign Host (403, DNS rebinding), no signing secret unless served on purpose.
const SECRET = 'whsec_controlGuardPlaceholder0123456789';
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await createSandbox({ timeScale: 0.001, signing: { scheme: 'stripe', secret: SECRET } });
});
afterAll(() => sandbox?.close());

async function heldPayment(): Promise<string> {
  const answer = await request(`${sandbox.url}/v1/payment_intents`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${SANDBOX_API_KEY}`,
      'content-type': 'application/x-www-form-urlencoded',
      'payonce-fault': 'hold',
    },
    body: 'amount=1500&currency=usd&payment_method=pm_card_visa&confirm=true',
  });
  const json = (await answer.body.json()) as { id: string; status: string };
  expect(json.status).toBe('processing');
  return json.id;
}

const post = (path: string, body: string, headers: Record<string, string>) =>
  request(`${sandbox.url}${path}`, { method: 'POST', headers, body });

describe('sandbox controls refuse what a cross-site page can send', () => {
  it.each([
    ['text/plain', 'text/plain;charset=UTF-8'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
  ])('a POST as %s is refused 415 before any effect: the payment stays unsettled', async (_what, type) => {
    const id = await heldPayment();
    const answer = await post(`/_sandbox/payments/${id}/settle`, '{"outcome":"succeed"}', { 'content-type': type });
    expect(answer.statusCode).toBe(415);
    expect(await answer.body.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
    expect(sandbox.controls.payment(id)?.status).toBe('processing');
  });

  it('a POST without a Content-Type (fetch no-cors with no body) is refused 415; the clock does not move', async () => {
    const before = sandbox.controls.nowMs();
    const answer = await request(`${sandbox.url}/_sandbox/clock`, { method: 'POST' });
    expect(answer.statusCode).toBe(415);
    await answer.body.dump();
    expect(sandbox.controls.nowMs() - before).toBeLessThan(3_600_000);
  });

  it('the same control as application/json still works', async () => {
    const id = await heldPayment();
    const answer = await post(`/_sandbox/payments/${id}/settle`, '{"outcome":"succeed"}', {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(answer.statusCode).toBe(200);
    await answer.body.dump();
    expect(sandbox.controls.payment(id)?.status).toBe('succeeded');
  });

  it.each(['attacker.example', 'attacker.example:80', '127.0.0.1.nip.io', '[::2]:1'])(
    'Host %s (DNS rebinding) is refused 403 on controls and on /v1',
    async (host) => {
      for (const path of ['/_sandbox/ledger', '/v1/payment_intents']) {
        const answer = await request(`${sandbox.url}${path}`, {
          headers: { host, authorization: `Bearer ${SANDBOX_API_KEY}` },
        });
        expect(answer.statusCode).toBe(403);
        expect(await answer.body.json()).toMatchObject({ error: { code: 'host_not_allowed' } });
      }
    },
  );

  it.each(['localhost', `localhost:${0}`, '127.0.0.1', '[::1]:8080'])('Host %s is answered', async (host) => {
    const answer = await request(`${sandbox.url}/_sandbox/ledger`, { headers: { host } });
    expect(answer.statusCode).toBe(200);
    await answer.body.dump();
  });

  it('does not serve the signing secrets without serveSecrets', async () => {
    const signing = await request(`${sandbox.url}/_sandbox/signing`);
    expect(signing.statusCode).toBe(403);
    const text = await signing.body.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'secrets_not_served' } });
    expect(text).not.toContain('whsec_');
    const rotated = await post('/_sandbox/signing', JSON.stringify({ scheme: 'stripe', secret: SECRET }), {
      'content-type': 'application/json',
    });
    expect(await rotated.body.json()).toEqual({ scheme: 'stripe' });
    const endpoints = await request(`${sandbox.url}/_sandbox/endpoints`);
    expect(await endpoints.body.text()).not.toContain('whsec_');
    expect(sandbox.controls.signing().secret).toBe(SECRET);
  });
});

describe('sandbox options serveSecrets and allowedHosts', () => {
  it('serves the secrets and answers the allowed host when asked to', async () => {
    const served = await createSandbox({
      serveSecrets: true,
      allowedHosts: ['payonce-sandbox'],
      signing: { secret: SECRET },
    });
    try {
      const signing = await request(`${served.url}/_sandbox/signing`, { headers: { host: 'payonce-sandbox:12111' } });
      expect(signing.statusCode).toBe(200);
      expect(await signing.body.json()).toEqual({ scheme: 'stripe', secret: SECRET });
    } finally {
      await served.close();
    }
  });

  it.each([['http://host'], ['host:80'], ['']])('refuses allowedHosts %j with InvalidOption', async (host) => {
    await expect(createSandbox({ allowedHosts: [host] })).rejects.toBeInstanceOf(InvalidOption);
  });
});

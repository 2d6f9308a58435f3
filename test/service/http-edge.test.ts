import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemType } from '../../packages/payonce/src/problem/problem-details.js';
import { SERVICE_ROUTE_PROBLEMS, type ServiceRouteCode } from '../../packages/service/src/service-problems.js';
import { type Answer, call, type Harness, startHarness } from './service-harness.js';

function expectProblem(answer: Answer, code: ServiceRouteCode): void {
  const { status } = SERVICE_ROUTE_PROBLEMS[code];
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toBe('application/problem+json');
  expect(answer.body).toMatchObject({ type: problemType(code), status, code });
}

/** Sends `request` as raw bytes and returns everything the server wrote before closing. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
  });
}

function problemCodeOf(raw: string): { status: number; contentType: string | undefined; code: unknown } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /\r\ncontent-type: ([^\r]+)/i.exec(head)?.[1];
  return { status, contentType, code: (JSON.parse(body) as { code?: unknown }).code };
}

describe('reference service HTTP edge (attacker findings, issue #7)', () => {
  let h: Harness;
  let url: string;
  beforeAll(async () => {
    h = await startHarness();
    url = h.service.url;
  });
  afterAll(async () => {
    await h?.close();
  });

  async function newOrder(customer = 'customer-edge'): Promise<string> {
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      customer,
      body: { amountMinor: 1200, currency: 'EUR' },
    });
    expect(created.status).toBe(201);
    return created.body.order.id;
  }

  it('one Idempotency-Key on two orders checks out the first and refuses the second with 422, never a replay', async () => {
    const a = await newOrder();
    const b = await newOrder();
    const first = await call(url, 'POST', `/orders/${a}/checkout`, { customer: 'customer-edge', key: 'edge-k' });
    expect(first.status).toBe(201);
    const reuse = await call(url, 'POST', `/orders/${b}/checkout`, { customer: 'customer-edge', key: 'edge-k' });
    expectProblem(reuse, 'PAYLOAD_MISMATCH');
    expect(reuse.headers.get('idempotent-replayed')).toBeNull();
    const view = await call<{ attempts: unknown[] }>(url, 'GET', `/orders/${b}`, { customer: 'customer-edge' });
    expect(view.body.attempts).toHaveLength(0);
    const own = await call(url, 'POST', `/orders/${b}/checkout`, { customer: 'customer-edge', key: 'edge-k2' });
    expect(own.status).toBe(201);
    const retry = await call(url, 'POST', `/orders/${a}/checkout`, { customer: 'customer-edge', key: 'edge-k' });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
  });

  it('unknown routes, over-long ids and bad percent-escapes answer problem+json', async () => {
    expectProblem(await call(url, 'POST', '/webhooks/paypal', { body: {} }), 'ROUTE_NOT_FOUND');
    expectProblem(await call(url, 'GET', '/nothing-here'), 'ROUTE_NOT_FOUND');
    expectProblem(await call(url, 'GET', `/orders/${'x'.repeat(101)}`), 'ORDER_NOT_FOUND');
    expectProblem(await call(url, 'POST', `/orders/${'x'.repeat(300)}/checkout`, { key: 'long' }), 'ORDER_NOT_FOUND');
    expectProblem(await call(url, 'GET', '/orders/%E0%A4%A'), 'MALFORMED_REQUEST');
  });

  it("Node's parser errors (bare CR in a header, Content-Length with Transfer-Encoding) answer problem+json 400", async () => {
    const { host } = new URL(url);
    const bareCr = `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nX-Bad: a\rb\r\n\r\n`;
    const smuggle =
      `POST /orders HTTP/1.1\r\nHost: ${host}\r\nX-Customer-Id: c\r\nContent-Type: application/json\r\n` +
      'Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n';
    for (const request of [bareCr, smuggle]) {
      const answer = problemCodeOf(await rawExchange(url, request));
      expect(answer).toEqual({ status: 400, contentType: 'application/problem+json', code: 'MALFORMED_REQUEST' });
    }
  });

  it('a JSON null body, a non-UTF-8 charset and an oversized body are refused before anything runs', async () => {
    expectProblem(await call(url, 'POST', '/orders', { body: 'null' }), 'INVALID_REQUEST_BODY');
    const order = await newOrder();
    expectProblem(
      await call(url, 'POST', `/orders/${order}/checkout`, { key: 'null-body', body: 'null' }),
      'INVALID_REQUEST_BODY',
    );
    const latin1 = await fetch(`${url}/orders`, {
      method: 'POST',
      headers: { 'x-customer-id': 'customer-edge', 'content-type': 'application/json; charset=ISO-8859-1' },
      body: '{"amountMinor":100,"currency":"EUR"}',
    });
    expect(latin1.status).toBe(415);
    expect(latin1.headers.get('content-type')).toBe('application/problem+json');
    expect(((await latin1.json()) as { code: string }).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const utf8 = await call(url, 'POST', '/orders', {
      headers: { 'content-type': 'application/json; charset="UTF-8"' },
      body: { amountMinor: 100, currency: 'EUR' },
    });
    expect(utf8.status).toBe(201);
    const huge = JSON.stringify({ amountMinor: 100, currency: 'EUR', pad: 'x'.repeat(70_000) });
    expectProblem(await call(url, 'POST', '/orders', { body: huge }), 'REQUEST_BODY_TOO_LARGE');
  });

  it('X-Customer-Id sent twice or with a character outside visible ASCII is 400, never a customer "a, b"', async () => {
    const twice = await fetch(`${url}/orders/some-order`, {
      headers: [
        ['x-customer-id', 'customer-a'],
        ['x-customer-id', 'customer-b'],
      ],
    });
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { code: string }).code).toBe('CUSTOMER_ID_INVALID');
    for (const customer of ['two words', 'caf\u00e9', 'x'.repeat(161)]) {
      expectProblem(
        await call(url, 'POST', '/orders', { customer, body: { amountMinor: 1, currency: 'EUR' } }),
        'CUSTOMER_ID_INVALID',
      );
    }
    expectProblem(await call(url, 'GET', '/orders/some-order', { customer: '   ' }), 'CUSTOMER_ID_MISSING');
  });

  it('INVALID_MONEY names every bad field of POST /orders and says what is wrong with a negative amount', async () => {
    // Issue #11 item 16: two bad fields reported one; −5 was "an integer out of range".
    const both = await call<{ detail: string }>(url, 'POST', '/orders', {
      body: { amountMinor: -5, currency: 'euro' },
    });
    expectProblem(both, 'INVALID_MONEY');
    expect(both.body.detail).toMatch(/amountMinor .*negative.*; currency /);
    expect(both.body.detail).not.toMatch(/out of range|euro|-5/);
    const missing = await call<{ detail: string }>(url, 'POST', '/orders', { body: { note: 'x' } });
    expect(missing.body.detail).toMatch(/amountMinor is missing.*; currency is missing/);
    const zero = await call<{ detail: string }>(url, 'POST', '/orders', { body: { amountMinor: 0, currency: 'EUR' } });
    expect(zero.body.detail).toContain('got zero');
    const huge = await call<{ detail: string }>(url, 'POST', '/orders', {
      body: { amountMinor: 2 ** 60, currency: 'EUR' },
    });
    expect(huge.body.detail).toMatch(/at most 99999999/);
  });

  it('INVALID_MONEY: ISO-4217 codes only, at most 99 999 999 minor units, and the detail never echoes the value', async () => {
    const bad: Array<Record<string, unknown>> = [
      { amountMinor: 100, currency: 'X'.repeat(50_000) },
      { amountMinor: 100, currency: '<script>alert(1)</script>' },
      { amountMinor: 100, currency: { toString: 'x' } },
      { amountMinor: 100, currency: 'QQQ' },
      { amountMinor: 100, currency: 'eur' },
      { amountMinor: '<script>', currency: 'EUR' },
      { amountMinor: [1], currency: 'EUR' },
      { amountMinor: 100_000_000, currency: 'EUR' },
      { amountMinor: 0, currency: 'EUR' },
      { amountMinor: 10.5, currency: 'EUR' },
    ];
    for (const body of bad) {
      const answer = await call<{ detail: string }>(url, 'POST', '/orders', { body });
      expectProblem(answer, 'INVALID_MONEY');
      expect(answer.body.detail.length).toBeLessThan(120);
      expect(answer.body.detail).not.toMatch(/script|XXXX|object Object|QQQ|eur/);
    }
    for (const [amountMinor, currency] of [
      [99_999_999, 'EUR'],
      [1, 'UZS'],
      [500, 'JPY'],
    ] as const) {
      expect((await call(url, 'POST', '/orders', { body: { amountMinor, currency } })).status).toBe(201);
    }
  });
});

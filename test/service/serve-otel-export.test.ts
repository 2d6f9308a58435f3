import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import { createSqliteNamespace, type SqliteNamespace } from '../contract/backends/sqlite.js';
import { call, until, type ViewBody } from './service-harness.js';

// Done-when of issue 39: an OTLP/HTTP export from `payonce serve --otel` (the real CLI process) is received by a
// receiver in this test and decoded (the OTLP/HTTP JSON encoding of @opentelemetry/exporter-trace-otlp-http).

const BIN = fileURLToPath(new URL('../../packages/payonce/bin/payonce.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../packages/cli/dist/run-cli.js', import.meta.url));
const ADMIN_TOKEN = `tok_${randomUUID().replaceAll('-', '')}`;

/** An OTLP/JSON attribute: `{ key, value: { stringValue | intValue | … } }` (intValue may be a string). */
interface OtlpAttribute {
  readonly key: string;
  readonly value: { stringValue?: string; intValue?: number | string; boolValue?: boolean };
}

interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes?: readonly OtlpAttribute[];
}

/** One decoded `ExportTraceServiceRequest` / `ExportMetricsServiceRequest` body (OTLP/HTTP JSON). */
interface OtlpRequest {
  readonly path: string;
  readonly contentType: string;
  readonly body: {
    resourceSpans?: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
    resourceMetrics?: {
      resource: { attributes: OtlpAttribute[] };
      scopeMetrics: { metrics: { name: string }[] }[];
    }[];
  };
}

/** The attributes as a plain record (string, number or boolean values). */
function attributesOf(list: readonly OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}

/** A node:http OTLP receiver on a free port: it answers 200 `{}` and keeps every decoded request. */
async function otlpReceiver(): Promise<{ url: string; requests: OtlpRequest[]; server: Server }> {
  const requests: OtlpRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        path: req.url ?? '',
        contentType: String(req.headers['content-type'] ?? ''),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest['body'],
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

/** Every span received, with the resource attributes of its batch. */
function spansOf(requests: readonly OtlpRequest[]) {
  return requests
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) =>
      (r.body.resourceSpans ?? []).flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) =>
          ss.spans.map((span) => ({
            ...span,
            resource: attributesOf(rs.resource.attributes),
            attrs: attributesOf(span.attributes),
          })),
        ),
      ),
    );
}

describe('payonce serve --otel exports OTLP/HTTP (issue 39)', () => {
  let sandbox: Sandbox;
  let ns: SqliteNamespace;
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run npm run build first (npm test does)`);
    sandbox = await createSandbox({ timeScale: 0.001 });
    ns = await createSqliteNamespace();
    receiver = await otlpReceiver();
  });
  afterEach(() => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
  afterAll(async () => {
    await sandbox?.close();
    await ns?.drop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it('exports the resource and the server spans of POST /orders, checkout and the webhook; GET and the console show the trace id', async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--port',
        '0',
        '--database-url',
        ns.path,
        '--worker-poll-ms',
        '50',
        '--otel',
        receiver.url,
        '--otel-trace-url',
        'http://jaeger.invalid:16686/trace/{traceId}',
      ],
      {
        env: {
          ...process.env,
          PAYONCE_LOG_LEVEL: 'warn',
          PAYONCE_PROVIDER_URL: sandbox.url,
          STRIPE_WEBHOOK_SECRET: sandbox.controls.signing().secret,
          PAYONCE_ADMIN_TOKEN: ADMIN_TOKEN,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`payonce serve exited early:\n${output}`);
        return /payonce service listening on (http:\/\/\S+)/.exec(output)?.[1] ?? null;
      },
      20_000,
      'payonce serve to print its URL',
    );
    // The start lines may arrive in more than one chunk.
    await until(async () => output.includes(`otel: OTLP/HTTP to ${receiver.url}`), 10_000, 'the otel start line');
    sandbox.controls.setWebhookUrl(`${url}/webhooks/stripe`);

    // A caller's W3C traceparent: the server span of POST /orders is its child, in its trace.
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 2500, currency: 'EUR' },
      headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` },
    });
    expect(created.status).toBe(201);
    const orderId = created.body.order.id;
    const afterCreate = await call<ViewBody & { traceId: string | null }>(url, 'GET', `/orders/${orderId}`);
    expect(afterCreate.body.traceId).toBe(callerTrace);

    const checkout = await call(url, 'POST', `/orders/${orderId}/checkout`, { key: `otel-${orderId}` });
    expect(checkout.status).toBe(201);
    const done = await until(
      async () => {
        const view = await call<ViewBody & { traceId: string | null }>(url, 'GET', `/orders/${orderId}`);
        return view.body.order.status === 'completed' ? view.body : null;
      },
      20_000,
      'the webhook to pay the order and the worker to fulfil it',
    );
    const checkoutTrace = done.traceId;
    expect(checkoutTrace).toMatch(/^[0-9a-f]{32}$/);
    expect(checkoutTrace).not.toBe(callerTrace);

    const timeline = await call<{ trace: { id: string; url: string | null } | null }>(
      url,
      'GET',
      `/admin/api/orders/${orderId}/timeline`,
      { customer: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    );
    expect(timeline.status).toBe(200);
    expect(timeline.body.trace).toEqual({
      id: checkoutTrace,
      url: `http://jaeger.invalid:16686/trace/${checkoutTrace}`,
    });

    // SIGTERM flushes the batch span processor and the last metric collection before the process exits.
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const traceRequests = receiver.requests.filter((r) => r.path === '/v1/traces');
    expect(traceRequests.length).toBeGreaterThan(0);
    for (const request of traceRequests) expect(request.contentType).toContain('application/json');
    const spans = spansOf(receiver.requests);
    for (const span of spans) {
      expect(span.resource['service.name']).toBe('payonce-service');
      expect(span.resource['service.version']).toMatch(/^\d+\.\d+\.\d+/);
    }
    const port = Number(new URL(url).port);
    const server = (name: string) => spans.filter((s) => s.name === name && s.kind === 2);

    const [createSpan, ...moreCreates] = server('POST /orders');
    expect(moreCreates).toEqual([]);
    expect(createSpan?.traceId).toBe(callerTrace);
    expect(createSpan?.parentSpanId).toBe(callerSpan);
    expect(createSpan?.attrs).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/orders',
      'http.route': '/orders',
      'http.response.status_code': 201,
      'server.address': '127.0.0.1',
      'server.port': port,
    });

    const [checkoutSpan] = server('POST /orders/:id/checkout');
    expect(checkoutSpan?.traceId).toBe(checkoutTrace);
    expect(checkoutSpan?.attrs).toMatchObject({
      'http.route': '/orders/:id/checkout',
      'url.path': `/orders/${orderId}/checkout`,
      'http.response.status_code': 201,
    });

    // The intake's fastify plugin serves every provider on one route template.
    const webhooks = server('POST /webhooks/:provider');
    expect(webhooks.length).toBeGreaterThan(0);
    for (const webhook of webhooks) {
      expect(webhook.attrs).toMatchObject({
        'http.request.method': 'POST',
        'url.path': '/webhooks/stripe',
        'http.route': '/webhooks/:provider',
        'http.response.status_code': 200,
        'server.port': port,
      });
    }

    // The library's spans nest under the service's HTTP server span of the request that ran them.
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const ancestors = (span: (typeof spans)[number] | undefined): string[] => {
      const names: string[] = [];
      for (let at = byId.get(span?.parentSpanId ?? ''); at !== undefined; at = byId.get(at.parentSpanId ?? '')) {
        names.push(at.name);
      }
      return names;
    };
    const [libraryCheckout] = spans.filter((span) => span.name === 'payonce.payments.checkout');
    expect(libraryCheckout?.traceId).toBe(checkoutTrace);
    expect(ancestors(libraryCheckout)).toContain('POST /orders/:id/checkout');
    const idempotency = spans.filter((span) => span.name === 'payonce.http.idempotency');
    for (const [route, parent] of [
      ['/orders', createSpan],
      ['/orders/:id/checkout', checkoutSpan],
    ] as const) {
      const layer = idempotency.filter((span) => span.attrs['http.route'] === route);
      expect(layer.length, route).toBeGreaterThan(0);
      for (const span of layer) expect(span.parentSpanId, route).toBe(parent?.spanId);
    }
    const intakes = spans.filter((span) => span.name === 'payonce.webhook.intake');
    expect(intakes.length).toBeGreaterThan(0);
    const webhookIds = new Set(webhooks.map((webhook) => webhook.spanId));
    for (const intake of intakes) expect(webhookIds.has(intake.parentSpanId ?? '')).toBe(true);

    const gets = server('GET /orders/:id');
    expect(gets.length).toBeGreaterThan(0);
    expect(gets[0]?.attrs['http.route']).toBe('/orders/:id');

    const metricNames = receiver.requests
      .filter((r) => r.path === '/v1/metrics')
      .flatMap((r) => r.body.resourceMetrics ?? [])
      .flatMap((rm) => {
        expect(attributesOf(rm.resource.attributes)['service.name']).toBe('payonce-service');
        return rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.name));
      });
    expect(metricNames).toContain('http.server.request.duration');
  }, 90_000);
});

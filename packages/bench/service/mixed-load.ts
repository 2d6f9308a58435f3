/**
 * The mixed checkout + webhook load of the reference service on PostgreSQL, profiled.
 *
 *   npx tsx service/mixed-load.ts [--clients 64] [--seconds 15] [--warmup-seconds 3] [--pool N]
 *     [--provider-latency-ms MS]  (the sandbox answers every payment creation MS later: its `delay` fault)
 *     [--profile FILE]      (keep the service's .cpuprofile of the timed part there; default: a temporary file)
 *     [--json FILE]         (also write the figures as JSON)
 *   BENCH_NS = a PostgreSQL namespace to use (as a side); otherwise the script makes and drops its own.
 *   BENCH_QUICK=1 = smoke run (8 clients, 2 s).
 *
 * The service runs as `payonce serve` builds it (`createService`, worker and reconciliation loop on) in a fresh
 * child process, CPU-profiled during the timed part (inspector, 200 µs sampling), on the namespace's schema, with the sandbox provider (in this process, payments
 * held in `processing` so that the success comes from our webhook). Each of `--clients` closed-loop clients runs
 * flows: `POST /orders` with an `Idempotency-Key` (a quarter of them sent again: a replay), `POST
 * /orders/:id/checkout` with its key (a fifth sent again), then the provider's signed `payment_intent.succeeded`
 * webhook for that payment (a third delivered again: a duplicate). Every request is timed; the report gives req/s,
 * p50 and p99 over all of them, per route, then where the time goes: the service's CPU self time by module group
 * and function, each statement shape's count and summed latency as the service's `pg` saw it, and the time callers
 * waited for a pool connection.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createSandbox } from '@payonce/sandbox/internal/create-sandbox.js';
import { Pool } from 'undici';
import { quantile } from '../lib/measure.js';
import { createNamespace, type NamespaceInfo } from '../lib/namespaces.js';
import { emitSideResult, quickRun } from '../lib/side-protocol.js';
import { profileBreakdown } from './cpu-profile.js';
import { succeededDelivery } from './intake-fixture.js';
import { namespaceDatabaseUrl } from './load.js';
import { startServerProcess } from './server-process.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string' },
    seconds: { type: 'string' },
    'warmup-seconds': { type: 'string' },
    pool: { type: 'string' },
    'provider-latency-ms': { type: 'string' },
    profile: { type: 'string' },
    json: { type: 'string' },
  },
});
const quick = quickRun();
const CLIENTS = Number(values.clients ?? (quick ? 8 : 64));
const TIMED_MS = Number(values.seconds ?? (quick ? 2 : 15)) * 1_000;
const WARMUP_MS = Number(values['warmup-seconds'] ?? (quick ? 1 : 3)) * 1_000;
const log = (line: string) => process.stderr.write(`[mixed-load] ${line}\n`);

type Route = 'POST /orders' | 'POST /orders replay' | 'checkout' | 'checkout replay' | 'webhook' | 'webhook duplicate';

/** Latencies per route of the timed part; failures with their first message. */
class Timings {
  readonly byRoute = new Map<Route, number[]>();
  errors = 0;
  firstError: string | null = null;
  recording = false;

  add(route: Route, ms: number): void {
    if (!this.recording) return;
    const list = this.byRoute.get(route) ?? [];
    list.push(ms);
    this.byRoute.set(route, list);
  }

  fail(message: string): void {
    if (!this.recording) return;
    this.errors += 1;
    this.firstError ??= message;
  }
}

const timings = new Timings();

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown> | null;
}

async function send(
  http: Pool,
  route: Route,
  path: string,
  headers: Record<string, string>,
  body: string,
  expect: (status: number) => boolean,
): Promise<Answer> {
  const started = performance.now();
  const response = await http.request({ path, method: 'POST', headers, body });
  const text = await response.body.text();
  timings.add(route, performance.now() - started);
  if (!expect(response.statusCode)) {
    timings.fail(`${route} HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
    return { status: response.statusCode, json: null };
  }
  return { status: response.statusCode, json: JSON.parse(text) as Record<string, unknown> };
}

const ok = (status: number) => status === 200 || status === 201;

/** One flow: order (maybe twice), checkout (maybe twice), the provider's webhook (maybe twice). */
async function flow(http: Pool, customer: string, i: number): Promise<void> {
  const amountMinor = 1_000 + (i % 5_000);
  const json = { 'content-type': 'application/json', 'x-customer-id': customer };
  const orderHeaders = { ...json, 'idempotency-key': `order-${i}` };
  const orderBody = JSON.stringify({ amountMinor, currency: 'EUR' });
  const created = await send(http, 'POST /orders', '/orders', orderHeaders, orderBody, ok);
  if (Math.random() < 0.25) await send(http, 'POST /orders replay', '/orders', orderHeaders, orderBody, ok);
  const orderId = (created.json?.order as { id?: string } | undefined)?.id;
  if (orderId === undefined) return;
  const checkoutHeaders = { ...json, 'idempotency-key': `checkout-${orderId}` };
  const path = `/orders/${orderId}/checkout`;
  const checkout = await send(http, 'checkout', path, checkoutHeaders, '{}', ok);
  if (Math.random() < 0.2) await send(http, 'checkout replay', path, checkoutHeaders, '{}', ok);
  const attempt = checkout.json?.attempt as { id?: string; providerPaymentId?: string | null } | undefined;
  if (attempt?.id === undefined || typeof attempt.providerPaymentId !== 'string') {
    if (checkout.json) timings.fail(`checkout without a provider payment: ${JSON.stringify(checkout.json)}`);
    return;
  }
  const delivery = succeededDelivery({
    eventId: `evt_${orderId}`,
    paymentId: attempt.providerPaymentId,
    attemptId: attempt.id,
    orderId,
    amountMinor,
    currency: 'EUR',
  });
  const applied = (status: number) => status === 200;
  const hook = '/webhooks/stripe';
  await send(http, 'webhook', hook, delivery.headers, delivery.body, applied);
  if (Math.random() < 0.33) await send(http, 'webhook duplicate', hook, delivery.headers, delivery.body, applied);
}

function summary(latencies: number[], elapsedMs: number) {
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    perSec: (latencies.length / elapsedMs) * 1_000,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
  };
}

async function namespace(): Promise<{ info: NamespaceInfo; drop(): Promise<void> }> {
  const given = process.env.BENCH_NS;
  if (given) return { info: JSON.parse(given) as NamespaceInfo, drop: async () => {} };
  const ns = await createNamespace('postgres');
  return { info: ns.info, drop: () => ns.drop() };
}

const ns = await namespace();
const profileDir = await mkdtemp(join(tmpdir(), 'payonce-mixed-'));
const profilePath = values.profile ?? join(profileDir, 'service.cpuprofile');
const PROVIDER_LATENCY_MS = Number(values['provider-latency-ms'] ?? 0);
// A provider that takes its time: every payment creation answered PROVIDER_LATENCY_MS later (the sandbox's `delay`).
const latencyRules =
  PROVIDER_LATENCY_MS > 0
    ? {
        faultRules: { rules: [{ method: 'POST', path: '/v1/payment_intents', fault: `delay=${PROVIDER_LATENCY_MS}` }] },
      }
    : {};
const sandbox = await createSandbox({ defaults: { outcome: 'hold' }, ...latencyRules });
const args = ['service', '--database-url', namespaceDatabaseUrl(ns.info), '--provider-url', sandbox.url];
const server = await startServerProcess({
  args: [...args, '--worker', '--probe-times', ...(values.pool ? ['--pool', values.pool] : [])],
});
const http = new Pool(server.url, { connections: CLIENTS, pipelining: 1 });
const run = Date.now().toString(36);
log(
  `service pid ${server.pid} at ${server.url}; ${CLIENTS} clients, warm-up ${WARMUP_MS} ms, timed ${TIMED_MS} ms, ` +
    `provider latency ${PROVIDER_LATENCY_MS} ms`,
);
let stopAt = performance.now() + WARMUP_MS + TIMED_MS;
let timedFrom = 0;
try {
  const clients = Array.from({ length: CLIENTS }, async (_, c) => {
    for (let i = 0; performance.now() < stopAt; i++) {
      try {
        await flow(http, `mix-${run}-${c}`, i);
      } catch (error) {
        timings.fail(error instanceof Error ? error.message : String(error));
      }
    }
  });
  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
  await server.resetProbe();
  await server.startProfile();
  timings.recording = true;
  timedFrom = performance.now();
  stopAt = timedFrom + TIMED_MS;
  await new Promise((resolve) => setTimeout(resolve, TIMED_MS));
  timings.recording = false;
  const elapsedMs = performance.now() - timedFrom;
  const probe = await server.probe();
  await server.stopProfile(profilePath);
  await Promise.all(clients);
  const all = [...timings.byRoute.values()].flat();
  const total = summary(all, elapsedMs);
  const routes = Object.fromEntries(
    [...timings.byRoute.entries()].map(([route, ms]) => [route, summary(ms, elapsedMs)]),
  );
  await http.close();
  await server.stop();
  const profile = await profileBreakdown(profilePath);
  const lines: string[] = [];
  lines.push(
    `${CLIENTS} clients, ${(elapsedMs / 1000).toFixed(1)} s timed, load ${loadavg()[0]!.toFixed(2)} on ${cpus().length} cores`,
  );
  lines.push(
    `all requests: ${total.requests} = ${total.perSec.toFixed(0)} req/s, p50 ${total.p50Ms.toFixed(1)} ms, p99 ${total.p99Ms.toFixed(1)} ms; ` +
      `${timings.errors} errors${timings.firstError ? ` (first: ${timings.firstError})` : ''}`,
  );
  for (const [route, s] of Object.entries(routes)) {
    lines.push(
      `  ${route.padEnd(20)} ${String(s.requests).padStart(6)}  ${s.perSec.toFixed(0).padStart(5)}/s  p50 ${s.p50Ms.toFixed(1)} ms  p99 ${s.p99Ms.toFixed(1)} ms`,
    );
  }
  lines.push(
    `pg: ${probe.statements} statements (${(probe.statements / Math.max(1, total.requests)).toFixed(1)}/request), ` +
      `${probe.poolCheckouts} pool checkouts, waited ${probe.poolWaitMs.toFixed(0)} ms in all ` +
      `(${(probe.poolWaitMs / Math.max(1, probe.poolCheckouts)).toFixed(2)} ms per checkout, max ${probe.poolWaitMaxMs.toFixed(0)} ms)`,
  );
  const providerCalls = probe.providerCalls ?? 0;
  lines.push(
    `provider: ${providerCalls} createPayment calls, ${((probe.providerMs ?? 0) / Math.max(1, providerCalls)).toFixed(1)} ms each`,
  );
  for (const s of probe.byStatement.slice(0, 18)) {
    lines.push(
      `  ${String(s.calls).padStart(6)}× ${(s.totalMs / s.calls).toFixed(2).padStart(6)} ms  ${s.totalMs.toFixed(0).padStart(7)} ms  ${s.statement}`,
    );
  }
  lines.push(`service CPU profile (${profilePath}), ${profile.totalMs.toFixed(0)} ms sampled, self time:`);
  for (const g of profile.byGroup.slice(0, 16)) {
    lines.push(`  ${(g.share * 100).toFixed(1).padStart(5)}%  ${g.ms.toFixed(0).padStart(6)} ms  ${g.name}`);
  }
  lines.push('  top functions:');
  for (const f of profile.byFunction.slice(0, 16)) {
    lines.push(`  ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.ms.toFixed(0).padStart(6)} ms  ${f.name}`);
  }
  for (const line of lines) process.stderr.write(`${line}\n`);
  if (values.json) {
    const figures = { clients: CLIENTS, elapsedMs, total, routes, errors: timings.errors, probe, profile };
    await writeFile(values.json, `${JSON.stringify(figures, null, 2)}\n`);
  }
  emitSideResult({
    opsPerSec: total.perSec,
    p50Ms: total.p50Ms,
    p99Ms: total.p99Ms,
    operations: total.requests,
    errors: timings.errors,
    firstError: timings.firstError,
    notes: {
      clients: CLIENTS,
      statementsPerRequest: Number((probe.statements / Math.max(1, total.requests)).toFixed(2)),
      poolWaitMsPerCheckout: Number((probe.poolWaitMs / Math.max(1, probe.poolCheckouts)).toFixed(2)),
    },
  });
} finally {
  await http.close().catch(() => {});
  await server.stop();
  await sandbox.close();
  await ns.drop();
  await rm(profileDir, { recursive: true, force: true });
}

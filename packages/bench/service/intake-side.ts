/**
 * A side of the webhook-intake pair (lib/side-protocol.ts; target `service-webhook-intake` in
 * targets/service.ts):
 *
 *   node --expose-gc --import tsx service/intake-side.ts service|bare [--connections 8]
 *     [--warmup-ms 5000] [--timed-ms 3000] [--profile FILE]
 *   (BENCH_NS = a PostgreSQL namespace; BENCH_QUICK=1 = smoke; --profile: the server's CPU profile of the timed part;
 *   BENCH_SHAPES=1: also the count of each statement shape the server sent in the timed part)
 *
 * Seeds payable orders with a pending attempt each (untimed), starts the server in a fresh child process on that
 * namespace — `service`: the reference service as `payonce serve` builds it (`createService`, webhook intake →
 * Stripe signature → receipt → `applyProviderEvent` → journals), `bare`: the hand-written fastify + pg route of
 * bare-intake.ts — and sends one signed `payment_intent.succeeded` per order over `--connections` undici
 * keep-alive connections: a drained warm-up, then the timed part. Every answer must be 200 and, afterwards, every
 * delivered order paid with one fulfilment job; the statements the server sent per delivery are in the notes.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { emitSideResult, quickRun, sideNamespace } from '../lib/side-protocol.js';
import { seedOrders, signedDelivery } from './intake-fixture.js';
import { namespaceDatabaseUrl, type Operation, timedLoad } from './load.js';
import { startServerProcess } from './server-process.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    connections: { type: 'string', default: '8' },
    'warmup-ms': { type: 'string' },
    'timed-ms': { type: 'string' },
    profile: { type: 'string' },
  },
});
const mode = positionals[0];
if (mode !== 'service' && mode !== 'bare' && mode !== 'drizzle') {
  throw new Error('usage: intake-side.ts service|bare|drizzle [--connections N]');
}
const quick = quickRun();
const connections = Number(values.connections);
// 5 s of warm-up (about 2 000 deliveries here): with 1 s (~300 deliveries) part of the service's larger code was still
// in V8's baseline tier during the timed part (perf: BaselineOutOfLinePrologue/LeaveFrame), which priced a server's
// JIT warm-up rather than its steady state (notes/service.md).
const warmupMs = Number(values['warmup-ms'] ?? (quick ? 300 : 5_000));
const timedMs = Number(values['timed-ms'] ?? (quick ? 700 : 3_000));
/** Orders seeded: more than this machine delivers in warm-up + timed part (≈ 1.5 k/s at 8 connections). */
const orders = quick ? 2_000 : 15_000;
const log = (line: string) => process.stderr.write(`[intake-side ${mode}] ${line}\n`);

const ns = sideNamespace('postgres');
const databaseUrl = namespaceDatabaseUrl(ns);
const run = `r${Date.now().toString(36)}`;
const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
await seedOrders(db, run, orders);
const deliveries = Array.from({ length: orders }, (_, i) => signedDelivery(run, i));
log(`seeded ${orders} orders; starting the ${mode} server`);

const server = await startServerProcess({ args: [mode, '--database-url', databaseUrl] });
const http = new Pool(server.url, { connections, pipelining: 1 });
let next = 0;
const take = (): Operation | null => {
  const delivery = deliveries[next++];
  if (delivery === undefined) return null;
  return async () => {
    const response = await http.request({
      path: '/webhooks/stripe',
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200 || !text.includes('"applied"')) {
      throw new Error(`HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
    }
  };
};
try {
  const warm = await timedLoad(take, connections, warmupMs);
  log(`warm-up: ${warm.operations} deliveries, ${warm.opsPerSec.toFixed(0)}/s`);
  await server.resetProbe();
  if (values.profile) await server.startProfile();
  const sample = await timedLoad(take, connections, timedMs);
  const probe = await server.probe();
  if (values.profile) await server.stopProfile(values.profile);
  if (next >= orders) log(`ran out of seeded orders (${orders}): raise the seed`);
  const sent = Math.min(next, orders);
  const paid = await db.query<{ paid: string; jobs: string }>(
    `select (select count(*) from payonce_orders where status = 'paid') as paid,
            (select count(*) from payonce_outbox where topic = 'order.fulfil') as jobs`,
  );
  const { paid: paidCount, jobs } = paid.rows[0]!;
  const failures = warm.errors + sample.errors;
  const wrong = Number(paidCount) !== sent - failures || Number(jobs) !== Number(paidCount);
  const firstError =
    sample.firstError ??
    warm.firstError ??
    (wrong ? `${sent} delivered, ${paidCount} orders paid, ${jobs} fulfilment jobs` : null);
  log(
    `timed: ${sample.operations} deliveries in ${sample.elapsedMs.toFixed(0)} ms = ${sample.opsPerSec.toFixed(0)}/s, ` +
      `p50 ${sample.p50Ms.toFixed(2)} ms, p99 ${sample.p99Ms.toFixed(2)} ms; ` +
      `${(probe.statements / sample.operations).toFixed(2)} statements/delivery, ` +
      `server CPU ${((probe.cpuMs ?? 0) / Math.max(1, sample.operations)).toFixed(3)} ms/delivery ` +
      `(kernel ${((probe.cpuSystemMs ?? 0) / Math.max(1, sample.operations)).toFixed(3)})`,
  );
  if (process.env.BENCH_SHAPES === '1') {
    for (const shape of probe.byStatement) log(`  ${String(shape.calls).padStart(6)}× ${shape.statement}`);
  }
  emitSideResult({
    opsPerSec: sample.opsPerSec,
    p50Ms: sample.p50Ms,
    p99Ms: sample.p99Ms,
    operations: sample.operations,
    errors: sample.errors + (wrong ? 1 : 0),
    firstError,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    notes: {
      connections,
      statementsPerDelivery: Number((probe.statements / Math.max(1, sample.operations)).toFixed(2)),
      poolCheckoutsPerDelivery: Number((probe.poolCheckouts / Math.max(1, sample.operations)).toFixed(2)),
      ordersPaid: Number(paidCount),
      serverCpuMsPerDelivery: Number(((probe.cpuMs ?? 0) / Math.max(1, sample.operations)).toFixed(3)),
    },
  });
} finally {
  await http.close();
  await server.stop();
  await db.end();
}

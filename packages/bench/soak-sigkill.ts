/**
 * SIGKILL soak of `payonce serve` on PostgreSQL: the service runs under the demo's
 * supervisor (`ServiceSupervisor`, restarted after every exit) on a fresh database of its own, the sandbox provider
 * runs in this process, and for `--seconds` (default 75) workers create orders with an `Idempotency-Key` (each key
 * under its own customer, retried with the same key until answered, sometimes sent twice at once), open their
 * checkout (same), while the sandbox delivers signed webhooks with parallel copies, duplicates and forged copies,
 * and this script re-sends earlier events. Every `--kill-every-ms` (default 5 000) the service is SIGKILLed by
 * pid. Then it waits for the queue to drain and checks, from the database and the sandbox's ledgers:
 * orders per Idempotency-Key = 1, charges per order ≤ 1, fulfilments per paid order = 1, no 5xx answer (the
 * database is never taken down here, so every 5xx counts), no acknowledged (2xx) delivery without its completed
 * receipt and journal row. Loopback only; stops by itself; drops its database.
 *
 *   npm run build && npx tsx soak-sigkill.ts [--seconds 75] [--kill-every-ms 5000] [--workers 6]
 *     [--write-results]   (writes results/<date>-sigkill-soak.md)
 *
 * Exit code 0 when every check passed, 1 otherwise.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { DEMO_SERVICE_TIMINGS } from '@payonce/cli/internal/demo/demo-service-timings.js';
import { findFreePort } from '@payonce/cli/internal/demo/free-port.js';
import { serviceLaunch } from '@payonce/cli/internal/demo/service-launch.js';
import { ServiceSupervisor } from '@payonce/cli/internal/demo/service-supervisor.js';
import { createSandbox, type Sandbox } from '@payonce/sandbox/internal/create-sandbox.js';
import { newSigningSecret } from '@payonce/sandbox/internal/webhook-signer.js';
import pg from 'pg';
import { writeNamedResult } from './lib/result-files.js';

const { values: flags } = parseArgs({
  options: {
    seconds: { type: 'string', default: '75' },
    'kill-every-ms': { type: 'string', default: '5000' },
    workers: { type: 'string', default: '6' },
    'write-results': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(flags.seconds);
const KILL_EVERY_MS = Number(flags['kill-every-ms']);
const WORKERS = Number(flags.workers);
const ADMIN_URL = process.env.PAYONCE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const log = (line: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** Every answer the service gave, by route and status; `null` status = no answer (connection refused/reset). */
const answers = new Map<string, number>();
const fiveHundreds: string[] = [];
function count(route: string, status: number | null, text = ''): void {
  const label = `${route} ${status ?? 'no-answer'}`;
  answers.set(label, (answers.get(label) ?? 0) + 1);
  if (status !== null && status >= 500) fiveHundreds.push(`${route} ${status} ${text.slice(0, 200)}`);
}

async function send(
  base: string,
  route: string,
  path: string,
  customer: string,
  key: string,
  body: unknown,
): Promise<{ status: number | null; json: Record<string, unknown> | null }> {
  try {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-customer-id': customer, 'idempotency-key': key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    count(route, response.status, text);
    let json: Record<string, unknown> | null = null;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = null;
    }
    return { status: response.status, json };
  } catch {
    count(route, null);
    return { status: null, json: null };
  }
}

/** Sends the same request (same key) until it is answered 2xx; a 4xx other than 409 ends it. */
async function untilAnswered(send1: () => ReturnType<typeof send>, deadline: number) {
  for (;;) {
    const answer = await send1();
    if (answer.status !== null && answer.status >= 200 && answer.status < 300) return answer;
    if (answer.status !== null && answer.status >= 400 && answer.status < 500 && answer.status !== 409) return answer;
    if (Date.now() > deadline) return answer;
    await sleep(100 + Math.random() * 150);
  }
}

interface Stats {
  keys: number;
  orderAnswers: number;
  checkouts: number;
  duplicatesSent: number;
  resends: number;
}

async function worker(base: string, run: string, id: number, until: number, stats: Stats): Promise<void> {
  for (let i = 0; Date.now() < until; i++) {
    const customer = `soak-${run}-${id}-${i}`;
    const key = `order-${i}`;
    stats.keys += 1;
    const order = () =>
      send(base, 'POST /orders', '/orders', customer, key, { amountMinor: 1_000 + i, currency: 'EUR' });
    const twice = Math.random() < 0.3;
    if (twice) stats.duplicatesSent += 1;
    const [created] = await Promise.all([
      untilAnswered(order, until + 20_000),
      twice ? untilAnswered(order, until + 20_000) : Promise.resolve(null),
    ]);
    const orderId = (created.json?.order as { id?: string } | undefined)?.id;
    if (orderId === undefined) continue;
    stats.orderAnswers += 1;
    const checkout = () =>
      send(base, 'POST /orders/:id/checkout', `/orders/${orderId}/checkout`, customer, `checkout-${orderId}`, {});
    const again = Math.random() < 0.2;
    if (again) stats.duplicatesSent += 1;
    await Promise.all([
      untilAnswered(checkout, until + 20_000),
      again ? untilAnswered(checkout, until + 20_000) : Promise.resolve(null),
    ]);
    stats.checkouts += 1;
  }
}

/** Re-sends a few earlier genuine events (duplicates arriving while the service may be down or restarting). */
async function resender(sandbox: Sandbox, until: number, stats: Stats): Promise<void> {
  while (Date.now() < until) {
    await sleep(700);
    const events = sandbox.controls.events();
    if (events.length === 0) continue;
    const event = events[Math.floor(Math.random() * events.length)]!;
    stats.resends += 1;
    await sandbox.controls.resend(event.id, 2, 2).catch(() => []);
  }
}

async function killer(supervisor: ServiceSupervisor, until: number): Promise<number> {
  let kills = 0;
  while (Date.now() + KILL_EVERY_MS / 2 < until) {
    await sleep(KILL_EVERY_MS * (0.7 + Math.random() * 0.6));
    const pid = supervisor.pid;
    if (supervisor.failure !== null) throw supervisor.failure;
    try {
      process.kill(pid, 'SIGKILL');
      kills += 1;
      log(`SIGKILL pid ${pid} (${kills})`);
    } catch {
      // already gone; the supervisor is restarting it
    }
    // Wait for the replacement before the next kill is scheduled.
    const deadline = Date.now() + 30_000;
    while (supervisor.pid === pid && Date.now() < deadline) await sleep(50);
  }
  return kills;
}

interface Check {
  readonly name: string;
  readonly value: string;
  readonly passed: boolean;
}

async function checks(db: pg.Client, sandbox: Sandbox): Promise<{ checks: Check[]; numbers: Record<string, number> }> {
  const orders = await db.query<{ principal: string; n: string }>(
    'select principal, count(*) as n from payonce_orders group by principal',
  );
  const extraOrders = orders.rows.filter((r) => Number(r.n) > 1);
  const ids = await db.query<{ id: string; status: string }>('select id, status from payonce_orders');
  let overCharged = 0;
  let charged = 0;
  for (const { id } of ids.rows) {
    const charges = sandbox.controls.orderLedger(id).chargeCount;
    if (charges > 0) charged += 1;
    if (charges > 1) overCharged += 1;
  }
  const fulfilments = await db.query<{ id: string; status: string; n: string }>(
    `select o.id, o.status, count(f.id) as n from payonce_orders o
       left join payonce_service_fulfilments f on f.order_id = o.id
      where o.status in ('paid', 'fulfilling', 'completed', 'refunded') group by o.id, o.status`,
  );
  const badFulfilments = fulfilments.rows.filter((r) => Number(r.n) !== 1);
  const doubleFulfilments = badFulfilments.filter((r) => Number(r.n) > 1).length;
  for (const order of badFulfilments.slice(0, 5)) {
    const jobs = await db.query(
      'select topic, status, attempts, last_error, lease_expires_at from payonce_outbox where payload like $1',
      [`%${order.id}%`],
    );
    const attempts = await db.query('select id, status from payonce_payment_attempts where order_id = $1', [order.id]);
    log(
      `order ${order.id} ${order.status}: ${order.n} fulfilments; jobs ${JSON.stringify(jobs.rows)}; attempts ${JSON.stringify(attempts.rows)}`,
    );
  }
  const acked = new Set(
    sandbox.controls
      .deliveries()
      .filter((d) => d.status !== null && d.status >= 200 && d.status < 300)
      .map((d) => d.eventId),
  );
  const receipts = await db.query<{ external_id: string; status: string }>(
    "select external_id, status from payonce_receipts where provider = 'stripe'",
  );
  const completed = new Set(receipts.rows.filter((r) => r.status === 'completed').map((r) => r.external_id));
  const journal = await db.query<{ event_key: string }>(
    "select distinct event_key from payonce_webhook_deliveries where provider = 'stripe' and event_key is not null",
  );
  const journaled = new Set(journal.rows.map((r) => r.event_key));
  const unrecorded = [...acked].filter((id) => !completed.has(id) || !journaled.has(id));
  const deliveries5xx = sandbox.controls.deliveries().filter((d) => d.status !== null && d.status >= 500);
  for (const d of deliveries5xx) fiveHundreds.push(`webhook ${d.eventId} ${d.status} ${d.responseBody.slice(0, 200)}`);
  return {
    checks: [
      {
        name: 'orders per Idempotency-Key = 1',
        value: `${extraOrders.length} keys with more than one order`,
        passed: extraOrders.length === 0,
      },
      {
        name: 'charges per order ≤ 1',
        value: `${overCharged} orders charged twice (${charged} charged)`,
        passed: overCharged === 0,
      },
      {
        name: 'fulfilments per paid order = 1',
        value: `${doubleFulfilments} of ${fulfilments.rows.length} paid orders fulfilled twice or more, ${badFulfilments.length - doubleFulfilments} not (yet) fulfilled`,
        passed: badFulfilments.length === 0,
      },
      {
        name: 'zero 5xx (no database outage in this soak)',
        value: `${fiveHundreds.length}`,
        passed: fiveHundreds.length === 0,
      },
      {
        name: 'acknowledged deliveries without receipt and journal row = 0',
        value: `${unrecorded.length} of ${acked.size} acknowledged events`,
        passed: unrecorded.length === 0,
      },
    ],
    numbers: {
      orders: ids.rows.length,
      keysWithOrders: orders.rows.length,
      paidOrders: fulfilments.rows.length,
      acknowledgedEvents: acked.size,
      deliveries: sandbox.controls.deliveries().length,
      notFulfilled: badFulfilments.filter((r) => Number(r.n) === 0).length,
    },
  };
}

/** How long the drain may go without finishing one more job before the soak stops waiting (a stuck worker). */
const DRAIN_STALL_MS = 60_000;
/** The longest the drain may take in all, however slowly it progresses. */
const DRAIN_MAX_MS = 900_000;

/**
 * Waits until every paid order is fulfilled and the outbox is empty. A loaded machine drains slowly, so the wait
 * goes on while jobs keep finishing and ends only when none finished for `DRAIN_STALL_MS` (or after
 * `DRAIN_MAX_MS`): an order left unfulfilled then is a stuck worker, not a slow one.
 */
async function waitForQuiet(db: pg.Client, sandbox: Sandbox): Promise<void> {
  await sandbox.controls.idle(60_000);
  const started = Date.now();
  let lastOpen = Number.POSITIVE_INFINITY;
  let progressAt = started;
  while (Date.now() - started < DRAIN_MAX_MS && Date.now() - progressAt < DRAIN_STALL_MS) {
    const open = await db.query<{ n: string }>(
      `select (select count(*) from payonce_orders where status in ('paid', 'fulfilling'))
            + (select count(*) from payonce_outbox where status in ('queued', 'running')) as n`,
    );
    const left = Number(open.rows[0]?.n ?? 0);
    if (left === 0) return;
    if (left < lastOpen) {
      lastOpen = left;
      progressAt = Date.now();
    }
    await sleep(250);
  }
  log(`drain stopped with ${lastOpen} orders and jobs open after ${Math.round((Date.now() - started) / 1000)} s`);
}

function markdown(result: {
  date: string;
  seconds: number;
  kills: number;
  restarts: number;
  stats: Stats;
  load: { start: number[]; end: number[] };
  checks: Check[];
  numbers: Record<string, number>;
}): string {
  const routes = [...answers.entries()]
    .sort()
    .map(([label, n]) => `${label}: ${n}`)
    .join('; ');
  return [
    '## SIGKILL soak of `payonce serve` on PostgreSQL',
    '',
    `Run ${result.date} by \`npx tsx soak-sigkill.ts\` on ${cpus().length} cores: ${result.seconds} s of load,`,
    `${result.kills} SIGKILLs of the service (${result.restarts} supervised restarts), ${WORKERS} order workers.`,
    `Load average (1/5/15 min) at start ${result.load.start.map((n) => n.toFixed(2)).join(' / ')}, at end ${result.load.end.map((n) => n.toFixed(2)).join(' / ')}`,
    '(other engineers ran tests on this machine at the same time).',
    '',
    '| check | measured | passed |',
    '|---|---|---|',
    ...result.checks.map((c) => `| ${c.name} | ${c.value} | ${c.passed ? 'yes' : '**no**'} |`),
    '',
    `Keys: ${result.stats.keys} (${result.numbers.orders} order rows), answered orders ${result.stats.orderAnswers}, checkouts ${result.stats.checkouts},`,
    `paid orders ${result.numbers.paidOrders}, duplicate requests sent ${result.stats.duplicatesSent}, event re-sends ${result.stats.resends},`,
    `webhook deliveries ${result.numbers.deliveries} (${result.numbers.acknowledgedEvents} events acknowledged).`,
    `Answers by route and status: ${routes}.`,
  ].join('\n');
}

async function writeSection(section: string): Promise<void> {
  log(`wrote ${await writeNamedResult('sigkill-soak', new Date().toISOString(), section)}`);
}

async function main(): Promise<number> {
  const loadStart = loadavg();
  const run = randomBytes(4).toString('hex');
  const database = `payonce_soak_${run}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const databaseUrl = url.toString();
  let sandbox: Sandbox | null = null;
  let supervisor: ServiceSupervisor | null = null;
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    sandbox = await createSandbox({
      signing: { scheme: 'stripe', secret: newSigningSecret('stripe') },
      retryScheduleMs: [0, 300, 1_000, 2_000, 3_000, 5_000, 8_000, 13_000, 20_000, 30_000],
      deliveryTimeoutMs: 5_000,
      defaults: { parallelDeliveries: 2, duplicateDeliveries: 1, forgedSignature: true, settleAfterMs: 50 },
    });
    const launch = serviceLaunch({
      port: await findFreePort(),
      databaseUrl,
      providerUrl: sandbox.url,
      stripeWebhookSecret: sandbox.controls.signing().secret,
      standardWebhooksSecret: newSigningSecret('standard-webhooks'),
      adminToken: randomBytes(24).toString('base64url'),
      timings: DEMO_SERVICE_TIMINGS,
    });
    const args = [...launch.args, '--idempotency-stale-after-ms', '2500', '--receipt-stale-after-ms', '2500'];
    supervisor = await ServiceSupervisor.start({ ...launch, args, maxFailedRestarts: 5 });
    sandbox.controls.setWebhookUrl(`${launch.url}/webhooks/stripe`);
    await db.connect();
    log(`service ${launch.url} pid ${supervisor.pid} on database ${database}; load for ${SECONDS} s`);
    const started = Date.now();
    const until = started + SECONDS * 1_000;
    const stats: Stats = { keys: 0, orderAnswers: 0, checkouts: 0, duplicatesSent: 0, resends: 0 };
    const [kills] = await Promise.all([
      killer(supervisor, until),
      resender(sandbox, until, stats),
      ...Array.from({ length: WORKERS }, (_, id) => worker(launch.url, run, id, until, stats)),
    ]);
    const seconds = Math.round((Date.now() - started) / 1_000);
    log(`load done after ${seconds} s, ${kills} kills; waiting for deliveries and fulfilments to finish`);
    await waitForQuiet(db, sandbox);
    const result = await checks(db, sandbox);
    const summary = {
      date: new Date().toISOString(),
      seconds,
      kills,
      restarts: supervisor.restarts.length,
      stats,
      load: { start: loadStart, end: loadavg() },
      ...result,
    };
    const section = markdown(summary);
    process.stdout.write(`${section}\n`);
    if (fiveHundreds.length > 0) log(`5xx answers:\n  ${fiveHundreds.slice(0, 20).join('\n  ')}`);
    if (flags['write-results']) await writeSection(section);
    return result.checks.every((c) => c.passed) && kills >= 10 && seconds >= 60 ? 0 : 1;
  } finally {
    await supervisor?.stop();
    await sandbox?.close();
    await db.end().catch(() => {});
    await admin.query(`drop database if exists ${database} with (force)`).catch((e: unknown) => log(String(e)));
    await admin.end();
  }
}

process.exitCode = await main();

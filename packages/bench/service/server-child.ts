/**
 * The server process of the service benches (forked by `server-process.ts`, never run by hand): either the reference
 * service (`createService`, as `payonce serve` builds it, on `--database-url`) or the hand-written fastify + pg
 * route of `bare-intake.ts`, on a free loopback port. Both count their `pg` statements (`pg-probe.ts`).
 *
 *   server-child.ts service --database-url URL [--provider-url URL] [--worker] [--probe-times] [--pool N]
 *   server-child.ts bare    --database-url URL [--probe-times] [--pool N]
 *   server-child.ts drizzle --database-url URL [--probe-times] [--pool N]   (drizzle-intake.ts)
 *
 * IPC: sends `{ type: 'ready', url }`; answers `{ type: 'reset' }` (zero the probe), `{ type: 'stats' }` (the
 * probe's snapshot and the server's CPU ms since the reset), `{ type: 'profile-start' }` and `{ type: 'profile-stop', path }` (a V8 CPU profile of just that
 * window, written to `path`, sampled every 200 µs) with `{ type: 'ack', id, value }`; `{ type: 'stop' }` closes
 * everything and exits 0.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { SandboxClient } from '@payonce/sandbox/internal/sandbox-client.js';
import { createService } from '@payonce/service/internal/create-service.js';
import { InMemoryPaymentProvider } from 'payonce/internal/payments/in-memory-payment-provider.js';
import pg from 'pg';
import { bareIntakeApp } from './bare-intake.js';
import { drizzleIntakeApp } from './drizzle-intake.js';
import { BENCH_PROVIDER, BENCH_STRIPE_SECRET } from './intake-fixture.js';
import { installPgProbe, pgProbeSnapshot, resetPgProbe } from './pg-probe.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'database-url': { type: 'string' },
    'provider-url': { type: 'string' },
    worker: { type: 'boolean', default: false },
    'probe-times': { type: 'boolean', default: false },
    pool: { type: 'string' },
  },
});
const mode = positionals[0];
const databaseUrl = values['database-url'];
if ((mode !== 'service' && mode !== 'bare' && mode !== 'drizzle') || databaseUrl === undefined) {
  throw new Error('usage: server-child.ts service|bare|drizzle --database-url URL');
}
installPgProbe({ times: values['probe-times'] });

const providerTime = { calls: 0, ms: 0 };
/** The process's CPU time (user + system) at the last `reset`, so `stats` can say how much the window used. */
let cpuAtReset = process.cpuUsage();

/** The sandbox client `createService` would make from `providerUrl`, its `createPayment` calls timed. */
function timedProvider(client: SandboxClient): SandboxClient {
  const create = client.createPayment.bind(client);
  client.createPayment = async (request) => {
    const started = performance.now();
    try {
      return await create(request);
    } finally {
      providerTime.calls += 1;
      providerTime.ms += performance.now() - started;
    }
  };
  return client;
}

async function start(): Promise<{ url: string; close(): Promise<void> }> {
  if (mode === 'bare') {
    const max = values.pool === undefined ? undefined : Number(values.pool);
    const pool = new pg.Pool({ connectionString: databaseUrl, ...(max === undefined ? {} : { max }) });
    const app = bareIntakeApp(pool, BENCH_STRIPE_SECRET);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    return {
      url,
      async close() {
        await app.close();
        await pool.end();
      },
    };
  }
  if (mode === 'drizzle') {
    const { app, close } = await drizzleIntakeApp(
      databaseUrl as string, // checked at the top
      BENCH_STRIPE_SECRET,
      values.pool === undefined ? undefined : Number(values.pool),
    );
    return { url: await app.listen({ host: '127.0.0.1', port: 0 }), close };
  }
  const providerUrl = values['provider-url'];
  const provider =
    providerUrl === undefined
      ? new InMemoryPaymentProvider({ name: BENCH_PROVIDER })
      : timedProvider(new SandboxClient({ baseUrl: providerUrl, timeoutMs: 5_000 }));
  const service = await createService({
    databaseUrl,
    ...(values.pool === undefined ? {} : { databasePoolSize: Number(values.pool) }),
    port: 0,
    logLevel: 'silent',
    worker: values.worker,
    groupCommit: true, // what issue #40 measures (`payonce serve --group-commit`; off by default in the service)
    preparedStatements: true, // `payonce serve --prepared-statements` (off by default: PgBouncer in transaction mode)
    stripeWebhookSecrets: BENCH_STRIPE_SECRET,
    provider,
  });
  const close = async () => {
    await service.close();
    if (provider instanceof SandboxClient) await provider.close();
  };
  return { url: service.url, close };
}

const server = await start();
const inspector = new Session();
inspector.connect();

async function answer(message: { type: string; path?: string }): Promise<unknown> {
  switch (message.type) {
    case 'reset':
      resetPgProbe();
      providerTime.calls = 0;
      providerTime.ms = 0;
      cpuAtReset = process.cpuUsage();
      return null;
    case 'stats': {
      const cpu = process.cpuUsage(cpuAtReset);
      return {
        ...pgProbeSnapshot(),
        providerCalls: providerTime.calls,
        providerMs: providerTime.ms,
        cpuMs: (cpu.user + cpu.system) / 1000,
        cpuSystemMs: cpu.system / 1000,
      };
    }
    case 'profile-start':
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
      await inspector.post('Profiler.start');
      return null;
    case 'profile-stop': {
      const { profile } = await inspector.post('Profiler.stop');
      if (message.path) await writeFile(message.path, JSON.stringify(profile));
      return message.path ?? null;
    }
    default:
      return null;
  }
}

process.on('message', (message: { type: string; id?: number; path?: string }) => {
  if (message.type === 'stop') {
    void server.close().finally(() => process.exit(0));
    return;
  }
  void answer(message).then((value) => process.send?.({ type: 'ack', id: message.id, value }));
});
process.send?.({ type: 'ready', url: server.url });

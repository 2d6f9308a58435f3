import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { createSandbox, type Sandbox } from '../../packages/sandbox/src/create-sandbox.js';
import { createSqliteNamespace, type SqliteNamespace } from '../contract/backends/sqlite.js';
import { call, until, type ViewBody } from './service-harness.js';

const BIN = fileURLToPath(new URL('../../packages/payonce/bin/payonce.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../packages/cli/dist/run-cli.js', import.meta.url));

/** A `payonce` child with its output so far. */
interface Child {
  readonly process: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];

function start(args: readonly string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env, PAYONCE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { process: child, output: () => output, exited };
}

/** Waits for `payonce service listening on <url>` and returns the URL. */
async function listeningUrl(child: Child): Promise<string> {
  return until(
    async () => {
      if (child.process.exitCode !== null) throw new Error(`payonce serve exited early:\n${child.output()}`);
      return /payonce service listening on (http:\/\/\S+)/.exec(child.output())?.[1] ?? null;
    },
    20_000,
    'payonce serve to print its URL',
  );
}

describe('payonce serve as a child process (built dist/)', () => {
  let sandbox: Sandbox;
  let ns: SqliteNamespace;
  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run npm run build first (npm test does)`);
    sandbox = await createSandbox({ timeScale: 0.001 });
    ns = await createSqliteNamespace();
  });
  afterEach(() => {
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await sandbox?.close();
    await ns?.drop();
  });

  const env = () => ({
    PAYONCE_PROVIDER_URL: sandbox.url,
    STRIPE_WEBHOOK_SECRET: sandbox.controls.signing().secret,
  });
  const args = (fulfilDelayMs: number) => [
    'serve',
    '--port',
    '0',
    '--database-url',
    ns.path,
    '--worker-poll-ms',
    '50',
    '--lease-ms',
    '2000',
    '--fulfil-delay-ms',
    String(fulfilDelayMs),
  ];

  it('SIGKILL during the fulfilment delay, restart on the same SQLite file: exactly one fulfilment', async () => {
    const first = start(args(1_500), env());
    const firstUrl = await listeningUrl(first);
    sandbox.controls.setWebhookUrl(`${firstUrl}/webhooks/stripe`);
    const health = await call(firstUrl, 'GET', '/healthz', { customer: null });
    expect(health.body).toMatchObject({ status: 'ok', pid: first.process.pid, database: 'sqlite' });
    const created = await call<{ order: { id: string } }>(firstUrl, 'POST', '/orders', {
      body: { amountMinor: 1999, currency: 'EUR' },
    });
    const orderId = created.body.order.id;
    const checkout = await call(firstUrl, 'POST', `/orders/${orderId}/checkout`, { key: `crash-${orderId}` });
    expect(checkout.status).toBe(201);
    const running = await until(
      async () => {
        const v = (await call<ViewBody>(firstUrl, 'GET', `/orders/${orderId}`)).body;
        return v.order.status === 'paid' && v.jobs[0]?.status === 'running' ? v : null;
      },
      10_000,
      'the fulfilment job to be leased',
    );
    expect(running.fulfilments).toHaveLength(0);
    first.process.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = start(args(200), env());
    const secondUrl = await listeningUrl(second);
    const done = await until(
      async () => {
        const v = (await call<ViewBody>(secondUrl, 'GET', `/orders/${orderId}`)).body;
        return v.order.status === 'completed' && v.jobs[0]?.status === 'done' ? v : null;
      },
      15_000,
      'the restarted service to finish the fulfilment',
    );
    expect(done.fulfilments).toHaveLength(1);
    expect(done.paidTransitions).toBe(1);
    expect(done.jobs[0]?.attempts).toBe(2);
    const health2 = await call(secondUrl, 'GET', '/healthz', { customer: null });
    expect(health2.body.pid).toBe(second.process.pid);

    second.process.kill('SIGTERM');
    const exit = await second.exited;
    expect(exit.code).toBe(0);
    expect(second.output()).toContain('SIGTERM, closing');
  }, 60_000);

  it('SIGTERM during the fulfilment delay stops at once, requeues the job, and a restart fulfils once', async () => {
    const first = start([...args(5_000), '--retry-base-ms', '50'], env());
    const url = await listeningUrl(first);
    sandbox.controls.setWebhookUrl(`${url}/webhooks/stripe`);
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 3300, currency: 'EUR' },
    });
    const orderId = created.body.order.id;
    await call(url, 'POST', `/orders/${orderId}/checkout`, { key: `term-${orderId}` });
    await until(
      async () => (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body.jobs[0]?.status === 'running',
      10_000,
      'the fulfilment job to be leased',
    );
    const signalledAt = Date.now();
    first.process.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(4_000);
    const store = await SqliteStore.open<unknown>(ns.path);
    try {
      const [job] = await new Outbox(store).jobsByDedupeKey(`order:${orderId}`);
      expect(job).toMatchObject({ topic: 'order.fulfil', status: 'queued', attempts: 1 });
      expect(job?.lastError).toContain('Abort');
    } finally {
      await store.close();
    }

    const second = start(args(0), env());
    const secondUrl = await listeningUrl(second);
    const done = await until(
      async () => {
        const v = (await call<ViewBody>(secondUrl, 'GET', `/orders/${orderId}`)).body;
        return v.order.status === 'completed' ? v : null;
      },
      15_000,
      'the restarted service to fulfil the order',
    );
    expect(done.fulfilments).toHaveLength(1);
    expect(done.jobs[0]).toMatchObject({ status: 'done', attempts: 2 });
  }, 60_000);

  it('serve --no-worker leaves fulfilment to payonce worker on the same database', async () => {
    const server = start([...args(0), '--no-worker'], env());
    const url = await listeningUrl(server);
    sandbox.controls.setWebhookUrl(`${url}/webhooks/stripe`);
    const created = await call<{ order: { id: string } }>(url, 'POST', '/orders', {
      body: { amountMinor: 4100, currency: 'EUR' },
    });
    const orderId = created.body.order.id;
    await call(url, 'POST', `/orders/${orderId}/checkout`, { key: `split-${orderId}` });
    const paid = await until(
      async () => {
        const v = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
        return v.order.status === 'paid' ? v : null;
      },
      10_000,
      'the order to be paid',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const still = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
    expect(still.jobs[0]?.status).toBe('queued');
    expect(still.fulfilments).toHaveLength(0);
    expect(paid.paidTransitions).toBe(1);

    const worker = start(['worker', '--database-url', ns.path, '--worker-poll-ms', '50'], env());
    await until(async () => worker.output().includes('payonce worker running on sqlite'), 20_000, 'the worker');
    const done = await until(
      async () => {
        const v = (await call<ViewBody>(url, 'GET', `/orders/${orderId}`)).body;
        return v.order.status === 'completed' ? v : null;
      },
      15_000,
      'the worker to fulfil the order',
    );
    expect(done.fulfilments).toHaveLength(1);
    worker.process.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
    server.process.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  }, 60_000);

  it('exits 2 with a clear message when no provider at all is configured', async () => {
    const child = start(['serve', '--port', '0', '--database-url', ns.path], { PAYONCE_PROVIDER_URL: '' });
    const exit = await child.exited;
    expect(exit.code).toBe(2);
    expect(child.output()).toContain(
      'needs --provider-url (or PAYONCE_PROVIDER_URL), or Payme, Click, Uzum or Telegram',
    );
  });

  it('exits 1 with the reason when the database cannot be opened', async () => {
    const child = start(['serve', '--port', '0', '--database-url', '/nonexistent-dir/sub/x.sqlite'], {
      PAYONCE_PROVIDER_URL: sandbox.url,
    });
    const exit = await child.exited;
    expect(exit.code).toBe(1);
    expect(child.output()).toMatch(/payonce serve: .+/);
  });
});

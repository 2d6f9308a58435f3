import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { createService } from '../../packages/service/src/create-service.js';
import { createSqliteNamespace, type SqliteNamespace } from '../contract/backends/sqlite.js';
import { ACCOUNT, AMOUNT, AUTH, KEY, newPaymeId } from '../providers/payme/payme-fixtures.js';
import { createUzsOrder, type LocalService, startLocalService } from './local-provider-harness.js';
import { call, FAST, until, untilFulfilled } from './service-harness.js';

const BIN = fileURLToPath(new URL('../../packages/payonce/bin/payonce.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../packages/cli/dist/run-cli.js', import.meta.url));
const FIELD = Object.keys(ACCOUNT)[0] as string;

describe('a service with only Payme, Click or Uzum credentials (no --provider-url)', () => {
  let local: LocalService;
  beforeAll(async () => {
    local = await startLocalService({ paymeKeys: KEY });
  });
  afterAll(async () => {
    await local?.close();
  });

  it('answers checkout and the Stripe-shaped webhooks 409 PROVIDER_NOT_CONFIGURED; the order stays untouched', async () => {
    const orderId = `order-${randomUUID()}`;
    await createUzsOrder(local.url, orderId, AMOUNT);
    const checkout = await call(local.url, 'POST', `/orders/${orderId}/checkout`, { key: `k-${orderId}` });
    expect(checkout.status).toBe(409);
    expect(checkout.headers.get('content-type')).toContain('application/problem+json');
    expect(checkout.body).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED' });
    for (const endpoint of ['stripe', 'standard-webhooks']) {
      const hook = await call(local.url, 'POST', `/webhooks/${endpoint}`, { customer: null, body: { id: 'evt_1' } });
      expect(hook.status).toBe(409);
      expect(hook.body).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED' });
    }
    const bare = await call<{ order: { currency: string } }>(local.url, 'POST', '/orders', {
      body: { orderId: `order-${randomUUID()}`, amountMinor: AMOUNT },
    });
    expect(bare.status).toBe(201);
    expect(bare.body.order.currency).toBe('UZS'); // the one currency Payme, Click and Uzum charge
    const view = await call<{ order: { status: string }; attempts: unknown[] }>(local.url, 'GET', `/orders/${orderId}`);
    expect(view.body.attempts).toEqual([]);
    expect(view.body.order.status).toBe('draft');
  });

  it('refuses to start with no provider URL and no local credentials, or half of Click or Uzum', async () => {
    const ns = await createSqliteNamespace();
    try {
      for (const partial of [{}, { clickServiceId: 1 }, { clickSecretKey: 'placeholder' }, { uzumLogin: 'login' }]) {
        await expect(createService({ ...FAST, databaseUrl: ns.path, ...partial })).rejects.toThrow(InvalidOption);
      }
    } finally {
      await ns.drop();
    }
  });

  it('payonce serve with neither --provider-url nor credentials exits 2 naming both', async () => {
    const lines: string[] = [];
    const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
    const previous = process.env.PAYONCE_PROVIDER_URL;
    delete process.env.PAYONCE_PROVIDER_URL;
    try {
      expect(await runCli(['serve', '--port', '0'], io)).toBe(2);
    } finally {
      if (previous !== undefined) process.env.PAYONCE_PROVIDER_URL = previous;
    }
    expect(lines.join('\n')).toMatch(
      /--provider-url.*--payme-key.*--click-service-id.*--uzum-login.*--telegram-bot-token/s,
    );
  });

  it('payonce serve with half of Click or Uzum exits 2 naming the missing flags, before opening anything', async () => {
    const saved = [
      'PAYONCE_CLICK_SECRET_KEY',
      'PAYONCE_UZUM_PASSWORD',
      'PAYONCE_UZUM_SERVICE_ID',
      'PAYONCE_TELEGRAM_SECRET_TOKEN',
    ].map((name) => [name, process.env[name]] as const);
    for (const [name] of saved) delete process.env[name];
    try {
      for (const [flags, message] of [
        [
          ['--click-service-id', '1'],
          /Click needs all of --click-service-id, --click-secret-key .*; missing: --click-secret-key$/,
        ],
        [['--uzum-login', 'login'], /Uzum needs all of .*; missing: --uzum-password, --uzum-service-id$/],
        [['--telegram-bot-token', '123456:placeholder'], /Telegram needs all of .*; missing: --telegram-secret-token$/],
      ] as const) {
        const lines: string[] = [];
        const io = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
        expect(await runCli(['serve', '--port', '0', ...flags], io)).toBe(2);
        expect(lines.join('\n')).toMatch(message);
        expect(lines.join('\n')).not.toMatch(/clickServiceId|uzumLogin|123456:placeholder/);
      }
    } finally {
      for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
    }
  });
});

describe('payonce serve --payme-key as a child process, no provider URL (built dist/)', () => {
  let ns: SqliteNamespace;
  let child: ChildProcess | null = null;
  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run npm run build first (npm test does)`);
    ns = await createSqliteNamespace();
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await ns?.drop();
  });

  it('starts and pays an order through POST /payme', async () => {
    const env: Record<string, string | undefined> = { ...process.env, PAYONCE_LOG_LEVEL: 'warn' };
    for (const name of ['PAYONCE_PROVIDER_URL', 'STRIPE_WEBHOOK_SECRET', 'STANDARD_WEBHOOKS_SECRET']) delete env[name];
    child = spawn(
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
        '--payme-key',
        KEY,
        '--payme-account-field',
        FIELD,
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const running = child;
    const url = await until(
      async () => {
        if (running.exitCode !== null) throw new Error(`payonce serve exited early:\n${output}`);
        return /payonce service listening on (http:\/\/\S+)/.exec(output)?.[1] ?? null;
      },
      20_000,
      'payonce serve to print its URL',
    );
    await until(async () => output.includes('PROVIDER_NOT_CONFIGURED'), 5_000, 'the no-provider line');
    const orderId = `order-${randomUUID()}`;
    await createUzsOrder(url, orderId, AMOUNT);
    const account = { [FIELD]: orderId };
    const rpc = async (method: string, params: Record<string, unknown>) => {
      const response = await fetch(`${url}/payme`, {
        method: 'POST',
        headers: new Headers({ ...AUTH.valid.headers, 'Content-Type': 'application/json' }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
    };
    const id = newPaymeId();
    expect((await rpc('CreateTransaction', { id, time: Date.now(), amount: AMOUNT, account })).result).toMatchObject({
      state: 1,
    });
    expect((await rpc('PerformTransaction', { id })).result).toMatchObject({ state: 2 });
    const done = await untilFulfilled(url, orderId);
    expect(done.paidTransitions).toBe(1);
    expect(done.fulfilments).toHaveLength(1);
  });
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bot } from 'grammy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../packages/cli/src/cli-io.js';
import { telegramSandboxBanner } from '../../packages/cli/src/commands/sandbox-telegram.js';
import { runCli } from '../../packages/cli/src/run-cli.js';
import { OutboxWorker } from '../../packages/payonce/src/outbox/outbox-worker.js';
import { transaction } from '../../packages/payonce/src/outbox/sql-transaction.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { PaymentAlert } from '../../packages/payonce/src/payments/payment-alert.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import { TelegramPayments } from '../../packages/payonce/src/providers/telegram/telegram-payments.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { parseTelegramFaults } from '../../packages/sandbox/src/telegram/telegram-faults.js';
import { createTelegramSandbox, type TelegramSandbox } from '../../packages/sandbox/src/telegram/telegram-sandbox.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';
import { orderFulfilJobs } from '../providers/order-fulfil-jobs.js';
import { until } from '../providers/telegram/telegram-support.js';
import { tsChildArgs } from '../support/ts-child.js';

const CHAT = 700_000_001;
const text = { title: 'Pro plan', description: '30 days of Pro (placeholder)' };

it('parses the CLI fault list and refuses unknown faults', () => {
  expect(parseTelegramFaults('duplicate,reorder,lose-get-updates=2,slow-pre-checkout=150,cancelled-order')).toEqual({
    duplicate: true,
    reorder: true,
    loseGetUpdates: 2,
    preCheckoutDeadlineMs: 150,
    skipPreCheckout: true,
  });
  expect(() => parseTelegramFaults('explode')).toThrow(/unknown fault/);
});

it('payonce sandbox telegram: usage errors exit 2; the banner names the URL and never a token of yours', async () => {
  const lines: string[] = [];
  const io: CliIo = { out: (l) => lines.push(l), err: (l) => lines.push(l) };
  expect(await runCli(['sandbox', 'telegram', '--inject', 'explode'], io)).toBe(2);
  expect(lines.join('\n')).toMatch(/unknown fault explode/);
  expect(await runCli(['sandbox', 'telegram', '--token', 'not-a-token'], io)).toBe(2);
  const banner = telegramSandboxBanner('http://127.0.0.1:8081', '42:MY-own-secret').join('\n');
  expect(banner).toContain("apiRoot: 'http://127.0.0.1:8081'");
  expect(banner).not.toContain('MY-own-secret');
});

it('payonce sandbox telegram --port N listens on N, not on the parent sandbox command’s port (issue 38)', async () => {
  const free = createServer();
  free.listen(0, '127.0.0.1');
  await once(free, 'listening');
  const port = (free.address() as AddressInfo).port;
  await new Promise((resolve) => free.close(resolve));
  const script = new URL('./cli-child.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, tsChildArgs(script, ['sandbox', 'telegram', '--port', String(port)]), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  try {
    await until(async () => /listening on http:\/\/\S+/.test(output) || child.exitCode !== null, 'the banner', 30_000);
    expect(output).toContain(`listening on http://127.0.0.1:${port}`);
    const ledger = await fetch(`http://127.0.0.1:${port}/sandbox/ledger`);
    expect(ledger.status).toBe(200);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});

it('control API: POST /sandbox/update pushes the caller’s update through the faults; /sandbox/pay before any invoice is 409 (issue 38)', async () => {
  const sandbox = await createTelegramSandbox({ faults: { duplicate: true } });
  try {
    const post = async (path: string, body: string) => {
      const res = await fetch(`${sandbox.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const paid = await post('/sandbox/pay', '{}');
    expect(paid).toEqual({
      status: 409,
      body: { ok: false, error_code: 409, description: expect.stringMatching(/no invoice sent yet/) },
    });
    expect((await post('/sandbox/pay', '{"invoiceRef":"msg:404"}')).status).toBe(404);
    await expect(sandbox.pay()).rejects.toThrow(/no invoice sent yet/);

    const message = { message_id: 5, date: 1_767_225_600, chat: { id: CHAT, type: 'private' }, text: 'hello' };
    const pushed = await post('/sandbox/update', JSON.stringify({ message }));
    expect(pushed).toEqual({ status: 200, body: { update_id: expect.any(Number) } });
    const updates = await fetch(`${sandbox.url}/bot${sandbox.token}/getUpdates`).then((r) => r.json());
    expect(updates).toEqual({
      ok: true,
      result: [
        { update_id: pushed.body.update_id, message },
        { update_id: pushed.body.update_id, message },
      ],
    }); // the duplicate fault in force: queued twice
    for (const bad of [
      '{}',
      '{"update_id":1}',
      '{"message":{},"edited_message":{}}',
      '{"message":"text"}',
      '[1]',
      'null',
    ]) {
      const refused = await post('/sandbox/update', bad);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.ok).toBe(false);
    }
  } finally {
    await sandbox.close();
  }
});

describe('Telegram sandbox: an unmodified grammY bot with the payonce engine (SQLite)', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  let payments: Payments<unknown>;
  let engine: TelegramPayments<unknown>;
  let sandbox: TelegramSandbox;
  let bot: Bot;
  const botErrors: unknown[] = [];
  const alerts: PaymentAlert[] = [];

  beforeAll(async () => {
    backend = await createSqlBackend('sqlite');
    store = await backend.open();
    sandbox = await createTelegramSandbox();
    payments = new Payments(store, { provider: new InMemoryPaymentProvider() });
    engine = new TelegramPayments(payments, {
      token: sandbox.token,
      apiBaseUrl: sandbox.url,
      onAlert: (a) => alerts.push(a),
    });
    bot = new Bot(sandbox.token, { client: { apiRoot: sandbox.url } });
    // The pre-checkout decided in one transaction by payonce, answered by grammY after the commit.
    bot.on('pre_checkout_query', async (ctx) => {
      const step = await transaction(store, (trx) => engine.handleUpdate(ctx.update, trx));
      if (step.kind !== 'pre_checkout_query') throw new Error('not a pre-checkout');
      await ctx.answerPreCheckoutQuery(step.answer.ok, step.answer.error_message);
    });
    bot.on('message:successful_payment', (ctx) => engine.handleUpdate(ctx.update, null));
    bot.catch((error) => botErrors.push(error));
    let started = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    void bot.start({ timeout: 1, onStart: () => started() });
    await running;
  });
  afterAll(async () => {
    await bot?.stop();
    await sandbox?.close();
    await backend?.drop();
  });

  const newOrder = async () => (await payments.createOrder('tg-user', { amountMinor: 250, currency: 'XTR' })).id;
  const sendInvoice = async (orderId: string) => {
    const invoice = await engine.invoiceOf(orderId, text);
    const { title, description, payload, currency, prices } = invoice;
    const message = await bot.api.sendInvoice(CHAT, title, description, payload, currency, prices, {
      provider_token: '',
    });
    return `msg:${message.message_id}`;
  };
  const status = async (orderId: string) => (await payments.findOrder(orderId))?.status;

  it('sendInvoice → pre-checkout → successful_payment: the order paid once, fulfilled once', async () => {
    const orderId = await newOrder();
    const invoiceRef = await sendInvoice(orderId);
    const paid = await sandbox.pay({ invoiceRef });
    expect(paid).toMatchObject({ outcome: 'paid', payload: orderId });
    await until(async () => (await status(orderId)) === 'paid', 'the order paid');
    expect(await orderFulfilJobs(store, orderId)).toBe(1);
    // Paid: a second attempt of the customer is refused at pre-checkout, and no money moves.
    expect(await sandbox.pay({ invoiceRef })).toMatchObject({ outcome: 'refused' });
    expect(sandbox.ledger.snapshot().netByCurrency.XTR).toBe(250);
  });

  it('duplicate and reordered updates: still paid once', async () => {
    Object.assign(sandbox.faults, { duplicate: true, reorder: true });
    try {
      const orderId = await newOrder();
      const result = await sandbox.pay({ invoiceRef: await sendInvoice(orderId) });
      expect(result.outcome).toBe('paid');
      await until(async () => (await status(orderId)) === 'paid', 'the order paid');
      expect(await orderFulfilJobs(store, orderId)).toBe(1);
      const journal = await payments.journalOf(orderId);
      expect(journal.filter((e) => e.decision === 'applied' && e.status === 'succeeded')).toHaveLength(1);
    } finally {
      Object.assign(sandbox.faults, { duplicate: false, reorder: false });
    }
  });

  it('a slow pre-checkout answer: Telegram gives up, no payment; a payment for a cancelled order is never paid', async () => {
    sandbox.faults.preCheckoutDeadlineMs = 0;
    const slow = await newOrder();
    expect(await sandbox.pay({ invoiceRef: await sendInvoice(slow) })).toMatchObject({ outcome: 'timeout' });
    sandbox.faults.preCheckoutDeadlineMs = undefined;
    expect(await status(slow)).not.toBe('paid');

    const cancelled = await newOrder();
    const invoiceRef = await sendInvoice(cancelled);
    await transaction(store, (trx) => payments.advanceOrder(trx, cancelled, 'cancelled'));
    sandbox.faults.skipPreCheckout = true;
    const result = await sandbox.pay({ invoiceRef });
    sandbox.faults.skipPreCheckout = false;
    await until(() => alerts.some((a) => a.eventId === `charge:${result.chargeId}`), 'the alert');
    expect(await status(cancelled)).toBe('cancelled');
  });

  it('a Stars refund through the outbox: refundStarPayment once, the order refunded, the ledger even', async () => {
    const orderId = await newOrder();
    const paid = await sandbox.pay({ invoiceRef: await sendInvoice(orderId) });
    await until(async () => (await status(orderId)) === 'paid', 'the order paid');
    const before = sandbox.ledger.snapshot().netByCurrency.XTR ?? 0;
    await engine.requestStarRefund({ orderId, userId: CHAT, chargeId: paid.chargeId as string });
    await engine.requestStarRefund({ orderId, userId: CHAT, chargeId: paid.chargeId as string });
    const worker = new OutboxWorker(store, engine.jobHandlers());
    expect(await worker.runOnce()).toMatchObject({ outcome: 'done' });
    expect(await worker.runOnce()).toBeNull();
    expect(await status(orderId)).toBe('refunded');
    const refunds = sandbox.ledger
      .snapshot()
      .movements.filter((m) => m.kind === 'refund' && m.chargeId === paid.chargeId);
    expect(refunds).toHaveLength(1);
    expect(sandbox.ledger.snapshot().netByCurrency.XTR).toBe(before - 250);
    // The only bot errors: answering a query already answered (the duplicate fault) or past its deadline.
    const texts = botErrors.map((e) => (e instanceof Error ? e.message : String(e)));
    expect(texts.filter((t) => !t.includes('query is too old'))).toEqual([]);
  });
});

describe('Telegram sandbox: Bot API behaviour', () => {
  let sandbox: TelegramSandbox;
  const call = async (method: string, params: object = {}, token = sandbox.token) => {
    const response = await fetch(`${sandbox.url}/bot${token}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    return {
      status: response.status,
      body: (await response.json()) as { ok: boolean; result?: unknown; description?: string },
    };
  };
  beforeAll(async () => {
    sandbox = await createTelegramSandbox({ webhookRetryDelayMs: 10 });
  });
  afterAll(async () => sandbox?.close());

  it('getMe, a wrong token 401, an unknown method 404; getUpdates offsets and a lost answer', async () => {
    expect((await call('getMe')).body).toMatchObject({ ok: true, result: { is_bot: true, id: 123456 } });
    expect((await call('getMe', {}, '999:wrong')).status).toBe(401);
    expect((await call('noSuchMethod')).status).toBe(404);
    const first = sandbox.pushUpdate('message', {
      message_id: 1,
      chat: { id: CHAT, type: 'private' },
      date: 0,
      text: 'a',
    });
    sandbox.faults.loseGetUpdates = 1;
    await expect(call('getUpdates', { timeout: 0 })).rejects.toThrow(); // the answer is cut
    const again = await call('getUpdates', { timeout: 0 });
    expect((again.body.result as { update_id: number }[]).map((u) => u.update_id)).toEqual([first]);
    expect((await call('getUpdates', { offset: first + 1, timeout: 0 })).body.result).toEqual([]);
  });

  it('setWebhook: POSTs with the secret token, redelivers on non-2xx; getUpdates is 409 meanwhile', async () => {
    const seen: { id: number; secret: unknown }[] = [];
    let failures = 2;
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const update = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { update_id: number };
        seen.push({ id: update.update_id, secret: req.headers['x-telegram-bot-api-secret-token'] });
        res.writeHead(failures-- > 0 ? 500 : 200).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/telegram`;
      expect((await call('setWebhook', { url, secret_token: 'bad token!' })).status).toBe(400);
      expect((await call('setWebhook', { url, secret_token: 'placeholder_secret' })).body.ok).toBe(true);
      const id = sandbox.pushUpdate('message', {
        message_id: 2,
        chat: { id: CHAT, type: 'private' },
        date: 0,
        text: 'b',
      });
      await sandbox.webhookIdle();
      expect(seen.filter((s) => s.id === id).map((s) => s.secret)).toEqual(Array(3).fill('placeholder_secret'));
      expect(
        sandbox
          .deliveries()
          .filter((d) => d.updateId === id)
          .map((d) => d.status),
      ).toEqual([500, 500, 200]);
      expect((await call('getUpdates', { timeout: 0 })).status).toBe(409);
      expect((await call('deleteWebhook')).body.ok).toBe(true);
    } finally {
      receiver.close();
    }
  });

  it('refuses a Stars invoice with two prices, an unknown pre-checkout, an unknown refund', async () => {
    const invoice = { chat_id: CHAT, title: 't', description: 'd', payload: 'order-x', currency: 'XTR' };
    const two = [
      { label: 'a', amount: 1 },
      { label: 'b', amount: 1 },
    ];
    expect((await call('sendInvoice', { ...invoice, prices: two })).status).toBe(400);
    expect((await call('createInvoiceLink', { ...invoice, prices: [{ label: 'a', amount: 5 }] })).body.result).toMatch(
      /^https:\/\/t\.me\//,
    );
    expect((await call('answerPreCheckoutQuery', { pre_checkout_query_id: 'nope', ok: true })).status).toBe(400);
    const refund = await call('refundStarPayment', { user_id: CHAT, telegram_payment_charge_id: 'nope' });
    expect(refund.body).toMatchObject({ ok: false, description: 'Bad Request: CHARGE_NOT_FOUND' });
  });

  it('refuses what a web page of another origin sends: cross-site, a rebound Host, a text/plain control', async () => {
    const url = new URL(sandbox.url);
    const raw = (method: string, path: string, headers: Record<string, string>, body = '') =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body);
      });
    await call('sendInvoice', {
      chat_id: CHAT,
      ...text,
      payload: 'order-page',
      provider_token: '',
      currency: 'XTR',
      prices: [{ label: 'a', amount: 5 }],
    });
    const page = { origin: 'http://page.invalid', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' };
    // A page's no-cors POST (no preflight) to pay, an <img> GET to move the webhook, a rebound name to read.
    expect(await raw('POST', '/sandbox/pay', { ...page, 'content-type': 'text/plain' }, '{}')).toBe(403);
    const hook = `/bot${sandbox.token}/setWebhook?url=${encodeURIComponent('http://page.invalid/hook')}`;
    expect(await raw('GET', hook, { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'image' })).toBe(403);
    expect(await raw('GET', hook, { 'sec-fetch-site': 'same-site' })).toBe(403); // another port of localhost
    expect(await raw('GET', '/sandbox/ledger', { host: `page.invalid:${url.port}` })).toBe(403);
    expect(await raw('GET', '/sandbox/ledger', { origin: 'null' })).toBe(403);
    expect(await raw('POST', '/sandbox/pay', { 'content-type': 'text/plain' }, '{}')).toBe(415);
    expect((await call('getWebhookInfo')).body.result).toMatchObject({ url: '' });
    expect(sandbox.ledger.snapshot().movements).toEqual([]);
    expect(sandbox.invoices().find((i) => i.payload === 'order-page')).toBeDefined();
    // The sandbox's own names and a tool's plain request still work.
    expect(await raw('GET', '/sandbox/ledger', { host: `localhost:${url.port}` })).toBe(200);
    expect(await raw('GET', '/sandbox/ledger', { origin: sandbox.url, 'sec-fetch-site': 'same-origin' })).toBe(200);
  });
});

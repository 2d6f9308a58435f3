import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { createTelegramSandbox, type TelegramSandbox } from '../../packages/sandbox/src/telegram/telegram-sandbox.js';
import { resolveLocalProviders } from '../../packages/service/src/local-provider-config.js';
import { type LocalService, startLocalService } from './local-provider-harness.js';
import { call, until, untilFulfilled, type ViewBody } from './service-harness.js';

const TOKEN = '123456:SANDBOX-service-telegram-token';
const SECRET = 'service_telegram_secret';
const CHAT = 700_000_001;
const STARS = 250;

describe('reference service: POST /telegram/webhook (Telegram Stars on the service orders) on SQLite', () => {
  let sandbox: TelegramSandbox;
  let local: LocalService;
  let nextUpdateId = 900_000_000;
  beforeAll(async () => {
    sandbox = await createTelegramSandbox({ token: TOKEN, webhookRetryDelayMs: 20 });
    local = await startLocalService({
      telegramBotToken: TOKEN,
      telegramSecretToken: SECRET,
      telegramApiUrl: sandbox.url,
    });
    const set = await fetch(`${sandbox.url}/bot${TOKEN}/setWebhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${local.url}/telegram/webhook`, secret_token: SECRET }),
    });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await local?.close();
    await sandbox?.close();
  });

  const view = async (orderId: string) => (await call<ViewBody>(local.url, 'GET', `/orders/${orderId}`)).body;
  const newOrder = async (currency = 'XTR', amountMinor = STARS) => {
    const orderId = `tg-${randomUUID()}`;
    const created = await call(local.url, 'POST', '/orders', { body: { orderId, amountMinor, currency } });
    expect(created.status).toBe(201);
    return orderId;
  };
  const invoice = async (orderId: string) => {
    const sent = await call<{ sent: boolean }>(local.url, 'POST', `/orders/${orderId}/telegram-invoice`, {
      body: { chatId: CHAT },
    });
    expect(sent).toMatchObject({ status: 200, body: { sent: true } });
    const ref = sandbox.invoices().find((i) => i.payload === orderId)?.ref;
    if (ref === undefined) throw new Error('the sandbox has no invoice of the order');
    return ref;
  };
  const post = (update: unknown, secret = SECRET) =>
    fetch(`${local.url}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
      body: JSON.stringify(update),
    });
  const paidUpdate = (orderId: string, chargeId: string, amount = STARS, currency = 'XTR') => ({
    update_id: nextUpdateId++,
    message: {
      message_id: nextUpdateId,
      from: { id: CHAT, is_bot: false, first_name: 'Placeholder' },
      chat: { id: CHAT, type: 'private' },
      date: 1767225600,
      successful_payment: {
        currency,
        total_amount: amount,
        invoice_payload: orderId,
        telegram_payment_charge_id: chargeId,
        provider_payment_charge_id: '',
      },
    },
  });

  it('an invoice paid through the sandbox: pre-checkout answered ok, the order paid once and fulfilled once', async () => {
    const orderId = await newOrder();
    const ref = await invoice(orderId);
    const paid = await sandbox.pay({ invoiceRef: ref });
    expect(paid).toMatchObject({ outcome: 'paid', payload: orderId });
    const done = await untilFulfilled(local.url, orderId);
    expect(done.paidTransitions).toBe(1);
    expect(done.fulfilments).toHaveLength(1);
    expect(done.attempts).toEqual([expect.objectContaining({ provider: 'telegram', status: 'succeeded' })]);
    // A second pay of the same invoice: the pre-checkout of a paid order is refused, nothing moves.
    expect(await sandbox.pay({ invoiceRef: ref })).toMatchObject({ outcome: 'refused' });
    expect((await view(orderId)).paidTransitions).toBe(1);
  });

  it('one update ×5 in parallel and a charge in another update: applied once; a forged or non-update body refused', async () => {
    const orderId = await newOrder();
    await invoice(orderId);
    const update = paidUpdate(orderId, `stx-${orderId.slice(3, 15)}`);
    const statuses = (await Promise.all(Array.from({ length: 5 }, () => post(update)))).map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect((await post(update)).status).toBe(200);
    const again = { ...update, update_id: nextUpdateId++ }; // the same charge in another update
    expect((await post(again)).status).toBe(200);
    const done = await untilFulfilled(local.url, orderId);
    expect(done.paidTransitions).toBe(1);
    expect(done.fulfilments).toHaveLength(1);
    expect((await post(paidUpdate(orderId, 'stx-forged'), 'not_the_secret')).status).toBe(401);
    expect((await post({ message: {} })).status).toBe(400);
    const journal = await local.service.context.store.db
      .selectFrom('payonce_webhook_deliveries' as never)
      .selectAll()
      .execute();
    expect(JSON.stringify(journal)).not.toContain(TOKEN.split(':')[1]);
    expect(JSON.stringify(journal)).not.toContain('Placeholder'); // names redacted
  });

  it('a foreign amount or currency is declined: the order stays unpaid; the Stars charge is refundable on its own', async () => {
    const orderId = await newOrder();
    const amountCharge = `stx-amount-${orderId.slice(3, 11)}`;
    expect((await post(paidUpdate(orderId, amountCharge, STARS + 1))).status).toBe(200);
    const currencyCharge = `stx-cur-${orderId.slice(3, 11)}`;
    expect((await post(paidUpdate(orderId, currencyCharge, STARS, 'USD'))).status).toBe(200);
    const v = await view(orderId);
    expect(v.paidTransitions).toBe(0);
    expect(v.order.status).not.toBe('paid');
    const refund = (chargeId: string) =>
      call(local.url, 'POST', `/orders/${orderId}/telegram-refund`, { body: { chargeId } });
    expect(await refund(amountCharge)).toMatchObject({ status: 202, body: { refund: 'requested' } });
    const fiat = await refund(currencyCharge); // not Stars: refunded through the payment provider, not the bot
    expect(fiat).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST_BODY' } });
    expect((await view(orderId)).order.status).toBe(v.order.status);
  });

  it('a Stars refund asked twice is one refundStarPayment and one refund; bad requests are 400/404', async () => {
    const orderId = await newOrder();
    const paid = await sandbox.pay({ invoiceRef: await invoice(orderId) });
    await untilFulfilled(local.url, orderId);
    const refund = { userId: CHAT, chargeId: paid.chargeId };
    // Another user first (issue 38): refused, nothing queued, so the right request afterwards still refunds.
    const wrongUser = await call(local.url, 'POST', `/orders/${orderId}/telegram-refund`, {
      body: { userId: CHAT + 8, chargeId: paid.chargeId },
    });
    expect(wrongUser).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST_BODY' } });
    const asks = await Promise.all(
      // The second without userId: the payer recorded with the charge.
      [refund, { chargeId: paid.chargeId }].map((body) =>
        call(local.url, 'POST', `/orders/${orderId}/telegram-refund`, { body }),
      ),
    );
    expect(asks.map((a) => a.status)).toEqual([202, 202]);
    await until(async () => (await view(orderId)).order.status === 'refunded', 10_000, 'the refund');
    // Asked again after the refund: the same answer, nothing refunded again.
    const late = await call(local.url, 'POST', `/orders/${orderId}/telegram-refund`, { body: refund });
    expect(late).toMatchObject({ status: 202, body: { refund: 'requested' } });
    const refunds = () =>
      sandbox.ledger.snapshot().movements.filter((m) => m.kind === 'refund' && m.payload === orderId);
    expect(refunds()).toHaveLength(1);
    const foreign = await call(local.url, 'POST', `/orders/${orderId}/telegram-refund`, {
      body: { userId: CHAT, chargeId: 'stx-not-ours' },
    });
    expect(foreign).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST_BODY' } });
    const other = await call(local.url, 'POST', `/orders/${orderId}/telegram-refund`, {
      body: refund,
      customer: 'customer-b',
    });
    expect(other.status).toBe(404);
    const uzs = await newOrder('UZS', 100_000);
    const refused = await call(local.url, 'POST', `/orders/${uzs}/telegram-invoice`, { body: { chatId: CHAT } });
    expect(refused).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST_BODY' } });
    expect(refunds()).toHaveLength(1);
  });

  it('settings: the bot token needs the secret token; a malformed token is refused without echoing it', () => {
    expect(() => resolveLocalProviders({ telegramBotToken: TOKEN })).toThrow(InvalidOption);
    expect(() => resolveLocalProviders({ telegramSecretToken: SECRET })).toThrow(InvalidOption);
    let message = '';
    try {
      resolveLocalProviders({ telegramBotToken: 'no-colon-secret', telegramSecretToken: SECRET });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/telegramBotToken/);
    expect(message).not.toContain('no-colon-secret');
    expect(resolveLocalProviders({ telegramBotToken: TOKEN, telegramSecretToken: SECRET }).telegram).toMatchObject({
      botId: '123456',
      apiUrl: null,
    });
  });
});

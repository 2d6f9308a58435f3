import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { OutboxWorker } from '../../../packages/payonce/src/outbox/outbox-worker.js';
import { transaction } from '../../../packages/payonce/src/outbox/sql-transaction.js';
import { InMemoryPaymentProvider } from '../../../packages/payonce/src/payments/in-memory-payment-provider.js';
import type { PaymentAlert } from '../../../packages/payonce/src/payments/payment-alert.js';
import { Payments } from '../../../packages/payonce/src/payments/payments.js';
import { chargesDb } from '../../../packages/payonce/src/providers/telegram/telegram-charges.js';
import { telegramInvoice } from '../../../packages/payonce/src/providers/telegram/telegram-invoice.js';
import {
  type LatePreCheckout,
  TelegramPayments,
} from '../../../packages/payonce/src/providers/telegram/telegram-payments.js';
import { TelegramPoller } from '../../../packages/payonce/src/providers/telegram/telegram-poller.js';
import { TELEGRAM_CHARGES_TABLE } from '../../../packages/payonce/src/providers/telegram/telegram-tables.js';
import type { TelegramUpdate } from '../../../packages/payonce/src/providers/telegram/telegram-update.js';
import { telegramWebhook } from '../../../packages/payonce/src/providers/telegram/telegram-webhook.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { createWebhookIntake } from '../../../packages/payonce/src/webhooks/intake.js';
import { createSqlBackend, type SqlBackend } from '../../outbox/sql-backends.js';
import { orderFulfilJobs } from '../order-fulfil-jobs.js';
import { FakeBotApi } from './fake-bot-api.js';
import { until } from './telegram-support.js';

const PAYER = 700_000_001;
let nextUpdate = 900_000_000;
let nextQuery = 1;

/** A placeholder `pre_checkout_query` update (shape: https://core.telegram.org/bots/api#precheckoutquery). */
function preCheckout(payload: string, total_amount: number, currency = 'XTR'): TelegramUpdate {
  const from = { id: PAYER, is_bot: false, first_name: 'Placeholder' };
  const query = { id: `pcq-${nextQuery++}`, from, currency, total_amount, invoice_payload: payload };
  return { update_id: nextUpdate++, pre_checkout_query: query };
}

/** A placeholder message with `successful_payment` (https://core.telegram.org/bots/api#successfulpayment). */
function paid(payload: string, total_amount: number, charge: string, currency = 'XTR'): TelegramUpdate {
  const from = { id: PAYER, is_bot: false, first_name: 'Placeholder' };
  const successful_payment = {
    currency,
    total_amount,
    invoice_payload: payload,
    telegram_payment_charge_id: charge,
    provider_payment_charge_id: '',
  };
  const chat = { id: PAYER, type: 'private', first_name: 'Placeholder' };
  return {
    update_id: nextUpdate++,
    message: { message_id: nextUpdate, from, chat, date: 1_767_225_600, successful_payment },
  };
}

const text = { title: 'Pro plan', description: '30 days of Pro (placeholder)' };

it('an invoice from an order: payload = order id, amount in smallest units, Stars without provider token', () => {
  const order = { id: 'order-1', amountMinor: 250, currency: 'XTR' } as Parameters<typeof telegramInvoice>[0];
  expect(telegramInvoice(order, text)).toEqual({
    ...text,
    payload: 'order-1',
    provider_token: '',
    currency: 'XTR',
    prices: [{ label: 'Pro plan', amount: 250 }],
  });
  const euro = { ...order, currency: 'EUR', amountMinor: 145 };
  expect(telegramInvoice(euro, { ...text, providerToken: 'provider:placeholder' }).prices).toEqual([
    { label: 'Pro plan', amount: 145 },
  ]);
  expect(() => telegramInvoice(euro, text)).toThrow(InvalidOption);
  expect(() => telegramInvoice(order, { ...text, title: 'x'.repeat(33) })).toThrow(InvalidOption);
});

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`${dialect}: Telegram Payments on payments`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let payments: Payments<unknown>;
    let engine: TelegramPayments<unknown>;
    let api: FakeBotApi;
    const paymentAlerts: PaymentAlert[] = [];
    const engineAlerts: PaymentAlert[] = [];
    const late: LatePreCheckout[] = [];

    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      api = await FakeBotApi.start();
      payments = new Payments(store, {
        provider: new InMemoryPaymentProvider(),
        onAlert: (a) => paymentAlerts.push(a),
      });
      engine = new TelegramPayments(payments, {
        token: api.token,
        apiBaseUrl: api.url,
        onAlert: (a) => engineAlerts.push(a),
        onLateAnswer: (l) => late.push(l),
      });
    });
    afterAll(async () => {
      await api?.close();
      await backend?.drop();
    });

    const newOrder = async (amountMinor = 250, currency = 'XTR') =>
      (await payments.createOrder('tg-user', { amountMinor, currency })).id;
    const answerOf = (queryId: unknown) =>
      api.paramsOf('answerPreCheckoutQuery').filter((p) => p.pre_checkout_query_id === queryId);
    const queryIdOf = (u: TelegramUpdate) => (u.pre_checkout_query as { id: string }).id;

    it('sends the invoice and an invoice link with the order as payload; the token is in no answer', async () => {
      const orderId = await newOrder();
      expect((await engine.sendInvoice(PAYER, orderId, text)).ok).toBe(true);
      const link = await engine.createInvoiceLink(orderId, text);
      expect(link.ok && link.result.startsWith('https://t.me/')).toBe(true);
      const [sent] = api.paramsOf('sendInvoice').slice(-1);
      expect(sent).toMatchObject({ chat_id: PAYER, payload: orderId, currency: 'XTR', prices: [{ amount: 250 }] });
      api.failMethod('sendInvoice', 400, 'Bad Request: chat not found');
      const refused = await engine.sendInvoice(PAYER, orderId, text);
      expect(refused).toEqual({
        ok: false,
        status: 400,
        description: 'Bad Request: chat not found',
        retryAfterMs: null,
      });
      expect(JSON.stringify(refused)).not.toContain(api.token);
    });

    it('pre-checkout: ok for a payable order (opening its telegram attempt), refused otherwise', async () => {
      const orderId = await newOrder();
      const ok = preCheckout(orderId, 250);
      const step = await engine.handleUpdate(ok, null);
      expect(step).toMatchObject({ kind: 'pre_checkout_query', answered: true, answer: { ok: true } });
      expect(answerOf(queryIdOf(ok))).toEqual([{ pre_checkout_query_id: queryIdOf(ok), ok: true }]);
      expect((await payments.attemptsOf(orderId)).map((a) => [a.provider, a.status])).toEqual([
        ['telegram', 'pending'],
      ]);
      // The buyer tries again: the same attempt, ok again.
      expect(await engine.handleUpdate(preCheckout(orderId, 250), null)).toMatchObject({ answer: { ok: true } });
      expect(await payments.attemptsOf(orderId)).toHaveLength(1);

      const refusals = [
        preCheckout(orderId, 251), // another amount
        preCheckout(orderId, 250, 'EUR'), // another currency
        preCheckout('no-such-order', 250),
        preCheckout('bad payload\n', 250),
      ];
      for (const update of refusals) {
        const refused = await engine.handleUpdate(update, null);
        expect(refused).toMatchObject({ kind: 'pre_checkout_query', answer: { ok: false } });
        const [sent] = answerOf(queryIdOf(update));
        expect(sent?.ok).toBe(false);
        expect(typeof sent?.error_message).toBe('string');
      }

      // Another provider's payment under way: Telegram may not take the order.
      const clickOrder = await newOrder();
      await transaction(store, (trx) =>
        payments.openProviderAttempt(trx, clickOrder, { provider: 'click', paymentId: `c-${clickOrder}` }),
      );
      expect(await engine.handleUpdate(preCheckout(clickOrder, 250), null)).toMatchObject({ answer: { ok: false } });
    });

    it('successful_payment marks the order paid once: redelivered, re-served, or the same charge in another update', async () => {
      const orderId = await newOrder();
      await engine.handleUpdate(preCheckout(orderId, 250), null);
      const charge = `stxCharge-${orderId.slice(0, 8)}`;
      const update = paid(orderId, 250, charge);
      const first = await engine.handleUpdate(update, null);
      expect(first).toMatchObject({ kind: 'successful_payment', decision: 'applied', becamePaid: true, userId: PAYER });
      expect(await engine.handleUpdate(update, null)).toMatchObject({ duplicate: true, becamePaid: false });
      expect(await engine.handleUpdate(paid(orderId, 250, charge), null)).toMatchObject({ duplicate: true });
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
      expect(await orderFulfilJobs(store, orderId)).toBe(1);
      // Pre-checkout for a paid order is refused.
      expect(await engine.handleUpdate(preCheckout(orderId, 250), null)).toMatchObject({ answer: { ok: false } });
    });

    it('a foreign amount, currency or payload is declined and alerted, and never pays the order', async () => {
      const orderId = await newOrder();
      await engine.handleUpdate(preCheckout(orderId, 250), null);
      const wrongAmount = await engine.handleUpdate(paid(orderId, 1, `stxWrongAmount-${orderId}`), null);
      expect(wrongAmount).toMatchObject({ decision: 'rejected', becamePaid: false });
      const wrongCurrency = await engine.handleUpdate(paid(orderId, 250, `stxWrongCur-${orderId}`, 'EUR'), null);
      expect(wrongCurrency).toMatchObject({ decision: 'rejected', becamePaid: false });
      expect(paymentAlerts.filter((a) => a.orderId === orderId)).toHaveLength(2);
      expect((await payments.findOrder(orderId))?.status).toBe('awaiting_payment');

      const unknown = await engine.handleUpdate(paid('no-such-order-x', 250, 'stxUnknownOrder'), null);
      expect(unknown).toMatchObject({ decision: 'parked', becamePaid: false });
      const garbage = await engine.handleUpdate(paid('', 250, 'stxNoPayload'), null);
      expect(garbage).toMatchObject({ decision: 'declined' });
      expect(engineAlerts.map((a) => a.eventId)).toEqual(
        expect.arrayContaining(['charge:stxUnknownOrder', 'charge:stxNoPayload']),
      );
    });

    it('a payment for an order cancelled after its pre-checkout never pays it, and is alerted', async () => {
      const orderId = await newOrder();
      await engine.handleUpdate(preCheckout(orderId, 250), null);
      await transaction(store, (trx) => payments.advanceOrder(trx, orderId, 'cancelled'));
      const step = await engine.handleUpdate(paid(orderId, 250, `stxCancelled-${orderId.slice(0, 8)}`), null);
      expect(step).toMatchObject({ kind: 'successful_payment', becamePaid: false });
      expect(step.kind === 'successful_payment' && step.reason).toMatch(/order is cancelled: needs a refund/);
      expect((await payments.findOrder(orderId))?.status).toBe('cancelled');
      expect([...paymentAlerts, ...engineAlerts].some((a) => a.orderId === orderId)).toBe(true);
    });

    it('an order whose Telegram attempt was cancelled is refused at pre-checkout; a late payment still counts', async () => {
      const orderId = await newOrder();
      await engine.handleUpdate(preCheckout(orderId, 250), null);
      const cancel = {
        provider: 'telegram',
        key: new RequestKey('telegram', `cancel:${orderId}`),
        eventType: 'test.cancel',
        status: 'cancelled' as const,
        paymentId: orderId,
        amountMinor: 250,
        currency: 'XTR',
        merchantReference: null,
        occurredAtMs: null,
      };
      expect((await payments.applyProviderEvent(cancel)).decision).toBe('applied');
      expect(await engine.handleUpdate(preCheckout(orderId, 250), null)).toMatchObject({ answer: { ok: false } });
      const late = await engine.handleUpdate(paid(orderId, 250, `stxLate-${orderId.slice(0, 8)}`), null);
      expect(late).toMatchObject({ kind: 'successful_payment', decision: 'applied' });
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
    });

    it('one-commit mode: decided in the caller’s transaction, answered only by answer() after the commit', async () => {
      const orderId = await newOrder();
      const update = preCheckout(orderId, 250);
      const step = await transaction(store, (trx) => engine.handleUpdate(update, trx));
      expect(step).toMatchObject({ answered: false, answer: { ok: true } });
      expect(answerOf(queryIdOf(update))).toEqual([]);
      expect(await engine.answer(step)).toMatchObject({ answered: true });
      expect(answerOf(queryIdOf(update))).toHaveLength(1);
    });

    it('a late answer (past the budget) is still sent, logged and counted', async () => {
      const orderId = await newOrder();
      const before = engine.stats.lateAnswers;
      const update = preCheckout(orderId, 250);
      await engine.handleUpdate(update, null, Date.now() - 9_000);
      expect(engine.stats.lateAnswers).toBe(before + 1);
      expect(late.at(-1)).toMatchObject({ queryId: queryIdOf(update), orderId, budgetMs: 8000 });
      expect(answerOf(queryIdOf(update))).toHaveLength(1);
    });

    it('Stars refund: one outbox job per charge, refundStarPayment called once, the order refunded once', async () => {
      const orderId = await newOrder();
      await engine.handleUpdate(preCheckout(orderId, 250), null);
      const chargeId = `stxRefund-${orderId.slice(0, 8)}`;
      await engine.handleUpdate(paid(orderId, 250, chargeId), null);
      await expect(engine.requestStarRefund({ orderId, userId: PAYER, chargeId: 'stxForeign' })).rejects.toThrow(
        InvalidOption,
      );
      await engine.requestStarRefund({ orderId, userId: PAYER, chargeId });
      await engine.requestStarRefund({ orderId, userId: PAYER, chargeId }); // a repeat enqueues nothing
      const worker = new OutboxWorker(store, engine.jobHandlers(), { pollIntervalMs: 10 });
      api.failMethod('refundStarPayment', 500, 'Internal Server Error');
      expect(await worker.runOnce()).toMatchObject({ outcome: 'retry' });
      const handler = engine.jobHandlers()['telegram.refund'];
      await until(async () => (await worker.runOnce())?.outcome === 'done', 'the refund job', 10_000);
      const refunds = api.paramsOf('refundStarPayment').filter((p) => p.telegram_payment_charge_id === chargeId);
      expect(refunds).toEqual([
        { user_id: PAYER, telegram_payment_charge_id: chargeId },
        { user_id: PAYER, telegram_payment_charge_id: chargeId },
      ]); // the failed call and the one that worked
      expect(await worker.runOnce()).toBeNull(); // one job only
      expect((await payments.findOrder(orderId))?.status).toBe('refunded');
      // The job run again (a worker that died after the effect): no second refundStarPayment.
      const job = {
        id: 'rerun',
        topic: 'telegram.refund',
        payload: { orderId, userId: PAYER, chargeId, amountMinor: 250, currency: 'XTR' },
      };
      await handler?.(
        job as never,
        { attempt: 2, once: async () => ({ kind: 'already-applied', effectKey: '' }) } as never,
      );
      expect(api.paramsOf('refundStarPayment').filter((p) => p.telegram_payment_charge_id === chargeId)).toHaveLength(
        2,
      );
      expect(JSON.stringify(await payments.journalOf(orderId))).not.toContain(api.token);
    });

    const refundCalls = (chargeId: string) =>
      api.paramsOf('refundStarPayment').filter((p) => p.telegram_payment_charge_id === chargeId);
    const drainRefunds = async () => {
      const worker = new OutboxWorker(store, engine.jobHandlers(), { pollIntervalMs: 10 });
      while ((await worker.runOnce()) !== null) {
        // every due job, once
      }
    };

    it('a second charge for a paid order (two devices) is alerted and refunded on its own; the order stays paid', async () => {
      const orderId = await newOrder();
      await engine.handleUpdate(preCheckout(orderId, 250), null);
      await engine.handleUpdate(preCheckout(orderId, 250), null); // the second device, before either payment
      const first = `stxFirst-${orderId.slice(0, 8)}`;
      const second = `stxSecond-${orderId.slice(0, 8)}`;
      expect(await engine.handleUpdate(paid(orderId, 250, first), null)).toMatchObject({ becamePaid: true });
      const extra = await engine.handleUpdate(paid(orderId, 250, second), null);
      expect(extra).toMatchObject({ decision: 'unchanged', duplicate: false, becamePaid: false });
      expect(extra.kind === 'successful_payment' && extra.reason).toMatch(/double charge/);
      expect(engineAlerts.filter((a) => a.eventId === `charge:${second}`)).toHaveLength(1);
      expect(await engine.handleUpdate(paid(orderId, 250, second), null)).toMatchObject({ duplicate: true });
      expect(engineAlerts.filter((a) => a.eventId === `charge:${second}`)).toHaveLength(1); // a repeat alerts nothing

      await engine.requestStrayStarRefund({ chargeId: second });
      await drainRefunds();
      expect(refundCalls(second)).toEqual([{ user_id: PAYER, telegram_payment_charge_id: second }]);
      expect(refundCalls(first)).toEqual([]);
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
      expect(await orderFulfilJobs(store, orderId)).toBe(1);
    });

    it('a charge for an order already refunded is alerted and can be refunded; the order stays refunded', async () => {
      const orderId = await newOrder();
      await engine.handleUpdate(preCheckout(orderId, 250), null);
      const first = `stxPaid-${orderId.slice(0, 8)}`;
      await engine.handleUpdate(paid(orderId, 250, first), null);
      await engine.requestStarRefund({ orderId, userId: PAYER, chargeId: first });
      await drainRefunds();
      expect((await payments.findOrder(orderId))?.status).toBe('refunded');
      const after = `stxAfterRefund-${orderId.slice(0, 8)}`;
      await engine.handleUpdate(paid(orderId, 250, after), null);
      expect(engineAlerts.filter((a) => a.eventId === `charge:${after}`)).toHaveLength(1);
      await expect(engine.requestStarRefund({ orderId, userId: PAYER, chargeId: first })).rejects.toThrow(
        InvalidOption,
      );
      await engine.requestStrayStarRefund({ chargeId: after });
      await drainRefunds();
      expect(refundCalls(after)).toHaveLength(1);
      expect(refundCalls(first)).toHaveLength(1);
      expect((await payments.findOrder(orderId))?.status).toBe('refunded');
    });

    it('a payment for an order cancelled meanwhile, and one of another amount, are refundable; the order is kept', async () => {
      const orderId = await newOrder();
      await engine.handleUpdate(preCheckout(orderId, 250), null);
      const wrong = `stxWrongSum-${orderId.slice(0, 8)}`;
      expect(await engine.handleUpdate(paid(orderId, 7, wrong), null)).toMatchObject({ decision: 'rejected' });
      await transaction(store, (trx) => payments.advanceOrder(trx, orderId, 'cancelled'));
      const late = `stxOnCancelled-${orderId.slice(0, 8)}`;
      await engine.handleUpdate(paid(orderId, 250, late), null);
      await engine.requestStrayStarRefund({ chargeId: wrong });
      await engine.requestStrayStarRefund({ chargeId: late });
      await drainRefunds();
      expect(refundCalls(wrong)).toHaveLength(1);
      expect(refundCalls(late)).toHaveLength(1);
      expect((await payments.findOrder(orderId))?.status).toBe('cancelled');
    });
    const refundsOf = (chargeId: string) =>
      api.paramsOf('refundStarPayment').filter((p) => p.telegram_payment_charge_id === chargeId);
    const paidOrder = async (tag: string) => {
      const orderId = await newOrder();
      await engine.handleUpdate(preCheckout(orderId, 250), null);
      const chargeId = `stx${tag}-${orderId.slice(0, 8)}`;
      await engine.handleUpdate(paid(orderId, 250, chargeId), null);
      return { orderId, chargeId };
    };

    it('a Stars refund goes to the payer of record: another userId is refused before anything is queued (issue 38)', async () => {
      const { orderId, chargeId } = await paidOrder('Payer');
      expect(await engine.chargeOf(chargeId)).toMatchObject({ userId: PAYER, orderRef: orderId, decision: 'applied' });
      const wrong = engine.requestStarRefund({ orderId, userId: PAYER + 8, chargeId });
      await expect(wrong).rejects.toThrow(InvalidOption);
      await expect(wrong).rejects.toMatchObject({ option: 'userId' });
      await expect(engine.requestStarRefund({ orderId, userId: 1.5, chargeId })).rejects.toThrow(InvalidOption);
      await engine.requestStarRefund({ orderId, chargeId }); // no userId: the payer of record
      const worker = new OutboxWorker(store, engine.jobHandlers(), { pollIntervalMs: 10 });
      await worker.drain();
      expect(refundsOf(chargeId)).toEqual([{ user_id: PAYER, telegram_payment_charge_id: chargeId }]);
      expect((await payments.findOrder(orderId))?.status).toBe('refunded');
    });

    it('a refund Telegram refuses (400) is a dead letter at once, alerted, not retried for ever', async () => {
      const { orderId, chargeId } = await paidOrder('Dead');
      await engine.requestStarRefund({ orderId, chargeId });
      api.failMethod('refundStarPayment', 400, 'Bad Request: CHARGE_NOT_FOUND');
      const worker = new OutboxWorker(store, engine.jobHandlers(), { pollIntervalMs: 10, maxAttempts: 5 });
      const run = await worker.runOnce();
      expect(run).toMatchObject({ outcome: 'dead', attempt: 1 });
      expect(run?.outcome === 'dead' && run.error).toMatch(/^PermanentJobFailure: .*CHARGE_NOT_FOUND/);
      expect(await worker.runOnce()).toBeNull();
      expect(engineAlerts.at(-1)).toMatchObject({ eventId: `refund:${chargeId}`, orderId });
      expect(engineAlerts.at(-1)?.reason).toMatch(/dead letter/);
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
      expect((await payments.outbox.deadLetters()).map((j) => j.dedupeKey)).toContain(`charge:${chargeId}`);
    });

    it('charges that paid no order (cancelled order, foreign amount, no order id) are refunded once through requestStrayStarRefund (issue 38)', async () => {
      const worker = new OutboxWorker(store, engine.jobHandlers(), { pollIntervalMs: 10 });
      // A Stars payment for an order cancelled before any pre-checkout: parked, visible on the order's journal.
      const cancelled = await newOrder(100);
      await transaction(store, (trx) => payments.advanceOrder(trx, cancelled, 'cancelled'));
      const parkedCharge = `stxParked-${cancelled.slice(0, 8)}`;
      expect(await engine.handleUpdate(paid(cancelled, 100, parkedCharge), null)).toMatchObject({ decision: 'parked' });
      expect((await payments.journalOf(cancelled)).map((e) => [e.eventId, e.decision])).toEqual([
        [`charge:${parkedCharge}`, 'parked'],
      ]);
      await expect(engine.requestStarRefund({ orderId: cancelled, chargeId: parkedCharge })).rejects.toThrow(
        /requestStrayStarRefund/,
      );
      // 1 star for a 250-star order: rejected. The order is then paid by its own charge, which stays refusable here.
      const { orderId, chargeId: goodCharge } = await paidOrder('Good');
      const foreignCharge = `stxForeignAmount-${orderId.slice(0, 8)}`;
      expect(await engine.handleUpdate(paid(orderId, 1, foreignCharge), null)).toMatchObject({ decision: 'rejected' });
      const noOrderCharge = `stxNoOrder-${orderId.slice(0, 8)}`;
      expect(await engine.handleUpdate(paid('', 7, noOrderCharge), null)).toMatchObject({ decision: 'declined' });
      const goodStray = engine.requestStrayStarRefund({ chargeId: goodCharge });
      await expect(goodStray).rejects.toThrow(/still paid: refund it with requestStarRefund/);
      await expect(engine.requestStrayStarRefund({ chargeId: parkedCharge, userId: PAYER + 1 })).rejects.toMatchObject({
        option: 'userId',
      });
      await expect(engine.requestStrayStarRefund({ chargeId: 'stxNeverSeen' })).rejects.toThrow(InvalidOption);
      for (const chargeId of [parkedCharge, foreignCharge, noOrderCharge]) {
        await engine.requestStrayStarRefund({ chargeId });
        await engine.requestStrayStarRefund({ chargeId, userId: PAYER }); // a repeat enqueues nothing
      }
      await worker.drain();
      expect(refundsOf(parkedCharge)).toEqual([{ user_id: PAYER, telegram_payment_charge_id: parkedCharge }]);
      expect(refundsOf(foreignCharge)).toHaveLength(1);
      expect(refundsOf(noOrderCharge)).toHaveLength(1);
      expect(refundsOf(goodCharge)).toEqual([]);
      for (const chargeId of [parkedCharge, foreignCharge, noOrderCharge]) {
        expect((await engine.chargeOf(chargeId))?.strayRefundedAtMs).toEqual(expect.any(Number));
      }
      // The orders are left as they were: cancelled, and paid by the good charge.
      expect((await payments.findOrder(cancelled))?.status).toBe('cancelled');
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
      // Asked again after the refund, nothing more is sent.
      await engine.requestStrayStarRefund({ chargeId: foreignCharge });
      await worker.drain();
      expect(refundsOf(foreignCharge)).toHaveLength(1);
    });

    it('refundStarCharge: one call refunds the paying charge with its order, any other charge on its own', async () => {
      const { orderId, chargeId } = await paidOrder('One');
      const double = `stxOneDouble-${orderId.slice(0, 8)}`;
      expect(await engine.handleUpdate(paid(orderId, 250, double), null)).toMatchObject({ decision: 'unchanged' });
      const foreign = `stxOneForeign-${orderId.slice(0, 8)}`;
      expect(await engine.handleUpdate(paid(orderId, 3, foreign), null)).toMatchObject({ decision: 'rejected' });
      const noOrder = `stxOneNoOrder-${orderId.slice(0, 8)}`;
      expect(await engine.handleUpdate(paid('', 9, noOrder), null)).toMatchObject({ decision: 'declined' });
      const other = await paidOrder('OneOther');

      // Refused before anything is queued: a charge sent for another order (or none), an unknown charge, another payer.
      for (const wrong of [
        { orderId, chargeId: other.chargeId },
        { orderId, chargeId: noOrder },
        { orderId, chargeId: 'stxOneNeverSeen' },
        { chargeId: 'stxOneNeverSeen' },
        { orderId: other.orderId, chargeId: double },
      ]) {
        await expect(engine.refundStarCharge(wrong)).rejects.toMatchObject({ option: 'chargeId' });
      }
      await expect(engine.refundStarCharge({ chargeId, userId: PAYER + 3 })).rejects.toMatchObject({
        option: 'userId',
      });
      await expect(engine.refundStarCharge({ chargeId: '' })).rejects.toThrow(InvalidOption);
      await drainRefunds(); // the refusals queued nothing
      for (const id of [chargeId, double, foreign, noOrder, other.chargeId]) expect(refundsOf(id)).toEqual([]);

      // The double charge first: refunded on its own, the order stays paid.
      expect(await engine.refundStarCharge({ orderId, chargeId: double })).toBe('stray');
      await drainRefunds();
      expect(refundsOf(double)).toEqual([{ user_id: PAYER, telegram_payment_charge_id: double }]);
      expect((await engine.chargeOf(double))?.strayRefundedAtMs).toEqual(expect.any(Number));
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
      // The paying charge: the order is refunded; twice asked, once refunded.
      expect(await engine.refundStarCharge({ orderId, chargeId })).toBe('order');
      expect(await engine.refundStarCharge({ chargeId, userId: PAYER })).toBe('order');
      await drainRefunds();
      expect(refundsOf(chargeId)).toEqual([{ user_id: PAYER, telegram_payment_charge_id: chargeId }]);
      expect((await payments.findOrder(orderId))?.status).toBe('refunded');
      expect((await engine.chargeOf(chargeId))?.strayRefundedAtMs).toBeNull();
      // Asked again once the order is refunded: no order left to refund, the same job key, nothing sent again.
      expect(await engine.refundStarCharge({ orderId, chargeId })).toBe('stray');
      // The foreign amount (its order) and the charge with no order id (no order to name) are refunded on their own.
      expect(await engine.refundStarCharge({ orderId, chargeId: foreign })).toBe('stray');
      expect(await engine.refundStarCharge({ chargeId: noOrder })).toBe('stray');
      await drainRefunds();
      expect(refundsOf(chargeId)).toHaveLength(1);
      expect(refundsOf(foreign)).toHaveLength(1);
      expect(refundsOf(noOrder)).toHaveLength(1);
      expect(refundsOf(other.chargeId)).toEqual([]);
      expect((await payments.findOrder(other.orderId))?.status).toBe('paid');
    });

    it('requestStarRefund finds the charge by its record, not the order journal; a charge from before 0015 still refunds', async () => {
      const first = await paidOrder('Lookup');
      const second = await paidOrder('LookupOther');
      const crossed = engine.requestStarRefund({ orderId: second.orderId, chargeId: first.chargeId });
      await expect(crossed).rejects.toMatchObject({ option: 'chargeId' });
      // A charge received before migration 0015 has no record: its journal row decides, and the payer must be given.
      await chargesDb(store).deleteFrom(TELEGRAM_CHARGES_TABLE).where('charge_id', '=', first.chargeId).execute();
      await expect(engine.requestStarRefund(first)).rejects.toMatchObject({ option: 'userId' });
      const wrongOrder = engine.requestStarRefund({ orderId: second.orderId, chargeId: first.chargeId, userId: PAYER });
      await expect(wrongOrder).rejects.toMatchObject({ option: 'chargeId' });
      expect(await engine.refundStarCharge({ ...first, userId: PAYER })).toBe('order');
      await drainRefunds();
      expect(refundsOf(first.chargeId)).toEqual([{ user_id: PAYER, telegram_payment_charge_id: first.chargeId }]);
      expect((await payments.findOrder(first.orderId))?.status).toBe('refunded');
      expect((await payments.findOrder(second.orderId))?.status).toBe('paid');
    });

    it('handleUpdate refuses what is not an update: the intake answers non-2xx, the redelivery is applied (issue 38)', async () => {
      for (const notAnUpdate of [{ provider: 'telegram', payload: {} }, null, 'x', { update_id: -1 }, []]) {
        await expect(engine.handleUpdate(notAnUpdate as never, null)).rejects.toMatchObject({ option: 'update' });
      }
      let mistake = true;
      const intake = createWebhookIntake({
        guard: new IdempotencyGuard(store),
        endpoints: {
          telegram: {
            ...telegramWebhook({ botId: '123456', secretTokens: 'placeholder_secret' }),
            // The guide's old one-liner passed the event itself; the fixed handler passes its payload.
            handler: (event) => engine.handleUpdate((mistake ? event : event.payload) as TelegramUpdate, null),
          },
        },
      });
      const orderId = await newOrder();
      await engine.handleUpdate(preCheckout(orderId, 250), null);
      const payment = paid(orderId, 250, `stxOneLiner-${orderId.slice(0, 8)}`);
      const deliver = () =>
        intake.receive({
          endpoint: 'telegram',
          rawBody: new TextEncoder().encode(JSON.stringify(payment)),
          headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'placeholder_secret' },
        });
      expect((await deliver()).status).toBeGreaterThanOrEqual(400);
      expect((await payments.findOrder(orderId))?.status).toBe('awaiting_payment');
      mistake = false;
      expect((await deliver()).status).toBe(200); // Telegram's redelivery: no receipt was kept
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
    });

    it('one handler for the webhook intake and the long-polling runner: paid once whichever brings the updates', async () => {
      const guard = new IdempotencyGuard(store);
      const intake = createWebhookIntake({
        guard,
        endpoints: {
          telegram: {
            ...telegramWebhook({ botId: '123456', secretTokens: 'placeholder_secret' }),
            handler: (event, { receivedAtMs }) =>
              engine.handleUpdate(event.payload as TelegramUpdate, null, receivedAtMs),
          },
        },
      });
      const deliver = (update: TelegramUpdate) =>
        intake.receive({
          endpoint: 'telegram',
          rawBody: new TextEncoder().encode(JSON.stringify(update)),
          headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'placeholder_secret' },
        });
      const orderId = await newOrder();
      const query = preCheckout(orderId, 250);
      const payment = paid(orderId, 250, `stxBoth-${orderId.slice(0, 8)}`);
      expect((await deliver(query)).status).toBe(200);
      expect(answerOf(queryIdOf(query))).toEqual([{ pre_checkout_query_id: queryIdOf(query), ok: true }]);
      const copies = await Promise.all([deliver(payment), deliver(payment), deliver(payment)]);
      expect(copies.map((r) => r.status).every((s) => s === 200 || s === 409)).toBe(true);

      // The same updates served by getUpdates (a bot moved from webhook to long polling): nothing more happens.
      const poller = new TelegramPoller({
        guard,
        token: api.token,
        apiBaseUrl: api.url,
        pollTimeoutSeconds: 0,
        retryDelayMs: 20,
        handler: (update) => engine.handleUpdate(update, null),
      });
      const other = await newOrder();
      const otherQuery = preCheckout(other, 250);
      api.push(query, payment, otherQuery, paid(other, 250, `stxPoll-${other.slice(0, 8)}`));
      poller.start();
      await until(async () => (await payments.findOrder(other))?.status === 'paid', 'the polled payment', 10_000);
      await poller.stop();
      expect(answerOf(queryIdOf(query))).toHaveLength(1); // a receipt already held: not answered twice
      expect(answerOf(queryIdOf(otherQuery))).toHaveLength(1);
      expect((await payments.findOrder(orderId))?.status).toBe('paid');
      expect(await orderFulfilJobs(store, orderId)).toBe(1);
      expect(await orderFulfilJobs(store, other)).toBe(1);
    });
  });
}

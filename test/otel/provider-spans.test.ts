import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import { TelegramPayments } from '../../packages/payonce/src/providers/telegram/telegram-payments.js';
import type { TelegramUpdate } from '../../packages/payonce/src/providers/telegram/telegram-update.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';
import { type ClickBench, clickBench } from '../providers/click/click-harness.js';
import { newPaymeId, PAYME_TIME } from '../providers/payme/payme-fixtures.js';
import { type PaymeBench, paymeBench } from '../providers/payme/payme-harness.js';
import { FakeBotApi } from '../providers/telegram/fake-bot-api.js';
import { newTransId, SERVICE_ID as UZUM_SERVICE, code as uzumCode } from '../providers/uzum/uzum-fixtures.js';
import { type UzumBench, uzumBench } from '../providers/uzum/uzum-harness.js';
import { registerTestSdk } from './otel-sdk.js';

// Issue 39: a span per provider-engine call (Payme, Click, Uzum, Telegram) under the SDK's in-memory exporter,
// with the rpc/http conventions and the payonce.* attributes docs/observability.md lists. SQLite: the spans do
// not depend on the dialect.

const sdk = registerTestSdk();
afterAll(() => sdk.shutdown());
beforeEach(() => sdk.spans.reset());

/** The one finished span named `name`. */
function only(name: string): ReadableSpan {
  const found = sdk.named(name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
}

/** Runs `fn` under a parent span, and answers the parent's span id (engine spans must be its children). */
async function underParent(fn: () => Promise<unknown>): Promise<string> {
  const tracer = trace.getTracer('test');
  return tracer.startActiveSpan('parent', async (parent) => {
    try {
      await fn();
      return parent.spanContext().spanId;
    } finally {
      parent.end();
    }
  });
}

describe('provider-engine spans (sqlite)', () => {
  let backend: SqlBackend;
  let store: SqlStore<unknown>;
  let payme: PaymeBench;
  let click: ClickBench;
  let uzum: UzumBench;

  beforeAll(async () => {
    backend = await createSqlBackend('sqlite');
    store = await backend.open();
    payme = paymeBench(store);
    click = clickBench(store);
    uzum = uzumBench(store);
  });
  afterAll(async () => backend?.drop());

  it('Payme: "payme <method>" server spans with JSON-RPC attributes, the transaction, its order and state', async () => {
    const { account, orderId } = payme.addOrder();
    const id = newPaymeId();
    const parentId = await underParent(async () => {
      const created = await payme.call('CreateTransaction', { id, time: PAYME_TIME, amount: 500_000, account });
      expect(created.result?.state).toBe(1);
    });
    const create = only('payme CreateTransaction');
    expect(create.kind).toBe(SpanKind.SERVER);
    expect(create.parentSpanContext?.spanId).toBe(parentId);
    expect(create.attributes).toMatchObject({
      'rpc.system': 'jsonrpc',
      'rpc.jsonrpc.version': '2.0',
      'rpc.method': 'CreateTransaction',
      'payonce.receipt.provider': 'payme',
      'payonce.provider.method': 'CreateTransaction',
      'payonce.provider.transaction.id': id,
      'payonce.order.id': orderId,
      'payonce.provider.state': 1,
    });
    expect((await payme.call('PerformTransaction', { id })).result?.state).toBe(2);
    expect(only('payme PerformTransaction').attributes).toMatchObject({
      'payonce.provider.transaction.id': id,
      'payonce.order.id': orderId,
      'payonce.provider.state': 2,
    });
    // A refusal is an answer (status unset), with its code; a body with no known method names no method.
    const again = await payme.call('CreateTransaction', { id, time: PAYME_TIME, amount: 500_000, account });
    expect(again.error?.code).toBe(-31008);
    const refused = sdk.named('payme CreateTransaction')[1] as ReadableSpan;
    expect(refused.attributes['rpc.jsonrpc.error_code']).toBe(-31008);
    expect(refused.attributes['payonce.provider.error_code']).toBe(-31008);
    expect(refused.status.code).toBe(SpanStatusCode.UNSET);
    expect((await payme.call('Nope', {})).error?.code).toBe(-32601);
    const unknown = only('payme');
    expect(unknown.attributes['rpc.method']).toBeUndefined();
    expect(unknown.attributes['payonce.provider.error_code']).toBe(-32601);
  });

  it('Click: "click Prepare" / "click Complete" with click_trans_id, the order, the state and error codes', async () => {
    const order = click.addOrder();
    const prepared = await click.prepare(order);
    expect(prepared.error).toBe(0);
    expect(only('click Prepare').attributes).toMatchObject({
      'payonce.receipt.provider': 'click',
      'payonce.provider.method': 'Prepare',
      'payonce.provider.transaction.id': String(prepared.click_trans_id),
      'payonce.order.id': order,
      'payonce.provider.state': 'prepared',
    });
    expect(only('click Prepare').attributes['payonce.provider.error_code']).toBeUndefined();
    expect((await click.complete(prepared)).error).toBe(0);
    expect(only('click Complete').attributes).toMatchObject({
      'payonce.provider.state': 'completed',
      'payonce.order.id': order,
    });
    expect(only('click Complete').kind).toBe(SpanKind.SERVER);
    expect((await click.prepare(order)).error).toBe(-4); // already paid
    expect((sdk.named('click Prepare')[1] as ReadableSpan).attributes['payonce.provider.error_code']).toBe(-4);
  });

  it('Uzum: "uzum <operation>" with the HTTP status, transId, the order and the status answered', async () => {
    const { params, orderId } = uzum.addOrder();
    const transId = newTransId();
    const call = (operation: string, fields: Record<string, unknown>) =>
      uzum.call(operation, { serviceId: UZUM_SERVICE, timestamp: uzum.clock.now(), ...fields });
    expect(
      (await call('create', { transId, params, amount: uzum.orders.get(params.account as string)?.amountTiyin }))
        .status,
    ).toBe(200);
    expect(only('uzum create').attributes).toMatchObject({
      'payonce.receipt.provider': 'uzum',
      'payonce.provider.method': 'create',
      'payonce.provider.transaction.id': transId,
      'payonce.order.id': orderId,
      'payonce.provider.state': 'CREATED',
      'http.response.status_code': 200,
    });
    expect((await call('confirm', { transId })).body.status).toBe('CONFIRMED');
    expect(only('uzum confirm').attributes['payonce.provider.state']).toBe('CONFIRMED');
    const missing = await call('confirm', { transId: newTransId() });
    expect(missing.status).toBe(400);
    const refused = sdk.named('uzum confirm')[1] as ReadableSpan;
    expect(refused.attributes).toMatchObject({
      'http.response.status_code': 400,
      'payonce.provider.error_code': uzumCode('transaction (transId) not found'),
    });
  });
});

describe('Telegram engine spans (sqlite)', () => {
  let backend: SqlBackend;
  let api: FakeBotApi;
  let payments: Payments<unknown>;
  let engine: TelegramPayments<unknown>;
  let update = 910_000_000;

  beforeAll(async () => {
    backend = await createSqlBackend('sqlite');
    api = await FakeBotApi.start();
    payments = new Payments(await backend.open(), { provider: new InMemoryPaymentProvider() });
    engine = new TelegramPayments(payments, { token: api.token, apiBaseUrl: api.url, onLateAnswer: () => {} });
  });
  afterAll(async () => {
    await api?.close();
    await backend?.drop();
  });

  const from = { id: 700_000_002, is_bot: false, first_name: 'Placeholder' };
  const preCheckout = (payload: string): TelegramUpdate => ({
    update_id: update++,
    pre_checkout_query: {
      id: `pcq-otel-${update}`,
      from,
      currency: 'XTR',
      total_amount: 250,
      invoice_payload: payload,
    },
  });
  const paid = (payload: string, charge: string): TelegramUpdate => ({
    update_id: update++,
    message: {
      message_id: update,
      from,
      chat: { id: from.id, type: 'private', first_name: 'Placeholder' },
      date: 1_767_225_600,
      successful_payment: {
        currency: 'XTR',
        total_amount: 250,
        invoice_payload: payload,
        telegram_payment_charge_id: charge,
        provider_payment_charge_id: '',
      },
    },
  });

  it('pre-checkout, its answer (a Bot API client span, no token) and the payment: one span each', async () => {
    const orderId = (await payments.createOrder('tg-user', { amountMinor: 250, currency: 'XTR' })).id;
    await engine.handleUpdate(preCheckout(orderId), null);
    expect(only('telegram pre_checkout_query').attributes).toMatchObject({
      'payonce.receipt.provider': 'telegram',
      'payonce.order.id': orderId,
      'payonce.provider.state': 'ok',
    });
    const answer = only('telegram answerPreCheckoutQuery');
    const port = Number(new URL(api.url).port);
    expect(answer.kind).toBe(SpanKind.CLIENT);
    expect(answer.attributes).toMatchObject({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': port,
      'payonce.provider.method': 'answerPreCheckoutQuery',
    });
    expect(answer.status.code).toBe(SpanStatusCode.UNSET);
    await engine.handleUpdate(paid(orderId, 'charge-otel-1'), null);
    expect(only('telegram successful_payment').attributes).toMatchObject({
      'payonce.provider.transaction.id': 'charge-otel-1',
      'payonce.order.id': orderId,
      'payonce.provider.state': 'applied',
    });
    api.failMethod('sendInvoice', 400, 'Bad Request: chat not found');
    await engine.sendInvoice(from.id, orderId, { title: 'Pro plan', description: 'placeholder' });
    const failed = only('telegram sendInvoice');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.attributes['payonce.provider.error_code']).toBe(400);
    const everything = JSON.stringify(sdk.spans.getFinishedSpans().map((s) => [s.attributes, s.status, s.events]));
    expect(everything).not.toContain(api.token.split(':')[1]);
  });
});

import { describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { clickProfile } from '../../packages/payonce/src/webhooks/providers/click-profile.js';
import { githubProfile } from '../../packages/payonce/src/webhooks/providers/github-profile.js';
import { MalformedWebhookPayload } from '../../packages/payonce/src/webhooks/providers/malformed-webhook-payload.js';
import { paymeProfile } from '../../packages/payonce/src/webhooks/providers/payme-profile.js';
import type { ProviderEvent, ProviderProfile } from '../../packages/payonce/src/webhooks/providers/provider-event.js';
import { standardWebhooksProfile } from '../../packages/payonce/src/webhooks/providers/standard-webhooks-profile.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { yookassaProfile } from '../../packages/payonce/src/webhooks/providers/yookassa-profile.js';
import { RawBodyRequired } from '../../packages/payonce/src/webhooks/verify/raw-body-required.js';
import { bodyBytes, fixtureFiles, readFixture, type Vector } from './fixtures.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => v as Json;
const utf8 = (s: string) => Buffer.from(s, 'utf8');

interface PayloadFixture {
  event_type: string;
  event_id_field?: string | null;
  raw_body: string;
  body: Json;
}

/** Example headers the Standard Webhooks spec publishes next to its payloads (fixture signed-content-example). */
const swExample = readFixture('standard-webhooks/payloads/signed-content-example.json') as {
  example_headers: Record<string, string>;
  signed_content: string;
};

const profileFor: Record<string, ProviderProfile> = {
  stripe: stripeProfile(),
  'standard-webhooks': standardWebhooksProfile(),
  yookassa: yookassaProfile(),
};

/** Two-decimal major-unit string → minor units, computed independently of the implementation. */
function twoDecimals(value: string): number {
  const [whole = '', fraction = ''] = value.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

/** Per-file expectations, all read from the fixture itself. */
const expectations: Record<string, (f: PayloadFixture) => Partial<ProviderEvent>> = {
  'stripe/payloads/charge.refunded.json': (f) => {
    const o = obj(obj(f.body.data).object);
    return {
      objectId: o.id as string,
      paymentId: o.payment_intent as string,
      amountMinor: o.amount as number,
      currency: String(o.currency).toUpperCase(),
      merchantReference: null,
      occurredAtMs: (f.body.created as number) * 1000,
    };
  },
  'stripe/payloads/checkout.session.completed.json': (f) => {
    const o = obj(obj(f.body.data).object);
    return {
      objectId: o.id as string,
      paymentId: o.payment_intent as string,
      amountMinor: o.amount_total as number,
      currency: String(o.currency).toUpperCase(),
      merchantReference: null,
      occurredAtMs: (f.body.created as number) * 1000,
    };
  },
  'stripe/payloads/plan.created.openapi-fixture.json': (f) => {
    const o = obj(obj(f.body.data).object);
    return { objectId: o.id as string, paymentId: null, amountMinor: o.amount as number, currency: 'USD' };
  },
  'yookassa/payloads/payment.waiting_for_capture.json': (f) => {
    const o = obj(f.body.object);
    const amount = obj(o.amount);
    return {
      eventId: null,
      objectId: o.id as string,
      paymentId: o.id as string,
      amountMinor: twoDecimals(amount.value as string),
      currency: amount.currency as string,
      merchantReference: null,
      occurredAtMs: Date.parse(o.created_at as string),
      key: RequestKey.forEvent('yookassa', o.id as string, f.event_type),
    };
  },
  'standard-webhooks/payloads/contact.created.full.json': (f) => ({
    eventId: swExample.example_headers['webhook-id'],
    objectId: obj(f.body.data).id as string,
    occurredAtMs: Date.parse(f.body.timestamp as string),
    amountMinor: null,
    currency: null,
  }),
  'standard-webhooks/payloads/contact.created.thin.json': (f) => ({
    eventId: swExample.example_headers['webhook-id'],
    objectId: obj(f.body.data).id as string,
    occurredAtMs: Date.parse(f.body.timestamp as string),
  }),
  'standard-webhooks/payloads/example.event.json': (f) => ({
    eventId: swExample.example_headers['webhook-id'],
    objectId: null,
    occurredAtMs: Date.parse(f.body.timestamp as string),
  }),
};

const payloadFiles = fixtureFiles('payloads').filter((f) => typeof obj(readFixture(f)).raw_body === 'string');

describe('provider payload fixtures', () => {
  it('finds the payload files and knows the ones without a body', () => {
    const without = fixtureFiles('payloads').filter((f) => !payloadFiles.includes(f));
    expect(without.sort()).toEqual([
      'standard-webhooks/payloads/signed-content-example.json',
      'stripe/payloads/openapi-resource-fixtures.json',
    ]);
    expect(payloadFiles.length).toBeGreaterThanOrEqual(7);
  });

  it.each(payloadFiles)('%s', (file) => {
    const fixture = readFixture(file) as PayloadFixture;
    const provider = file.split('/')[0] ?? '';
    const profile = profileFor[provider];
    if (profile === undefined) throw new Error(`no profile registered for provider directory ${provider}`);
    const event = profile.extract({ rawBody: bodyBytes(fixture.raw_body), headers: swExample.example_headers });
    expect(event.provider).toBe(profile.provider);
    expect(event.eventType).toBe(fixture.event_type);
    expect(event.payload).toEqual(fixture.body);
    if (fixture.event_id_field) {
      const id = fixture.body[fixture.event_id_field] as string;
      expect(event.eventId).toBe(id);
      expect(event.key?.equals(new RequestKey(profile.provider, id))).toBe(true);
    }
    if (event.amountMinor !== null) {
      expect(Number.isSafeInteger(event.amountMinor)).toBe(true);
      expect(event.currency).toMatch(/^[A-Z]{3}$/);
    }
    const expected = expectations[file];
    if (expected === undefined) throw new Error(`add field expectations for ${file}`);
    expect(event).toMatchObject(expected(fixture));
  });

  it('extracts Standard Webhooks ids from svix-id as well, and needs one of them', () => {
    const thin = readFixture('standard-webhooks/payloads/contact.created.thin.json') as PayloadFixture;
    const profile = standardWebhooksProfile({ provider: 'acme' });
    const id = swExample.example_headers['webhook-id'] ?? '';
    const event = profile.extract({ rawBody: bodyBytes(thin.raw_body), headers: { 'Svix-Id': id } });
    expect(event.key?.equals(new RequestKey('acme', id))).toBe(true);
    expect(() => profile.extract({ rawBody: bodyBytes(thin.raw_body), headers: {} })).toThrow(MalformedWebhookPayload);
    expect(() => profile.extract({ rawBody: bodyBytes(thin.raw_body) })).toThrow(MalformedWebhookPayload);
  });

  it('reads the payload inside the spec signed-content example the same way', () => {
    const [id, ts, ...rest] = swExample.signed_content.split('.');
    const event = standardWebhooksProfile().extract({
      rawBody: utf8(rest.join('.')),
      headers: { 'webhook-id': id ?? '' },
    });
    expect(event.eventId).toBe(swExample.example_headers['webhook-id']);
    expect(ts).toBe(swExample.example_headers['webhook-timestamp']);
    expect(event.eventType).toBe('contact.created');
  });
});

describe('Stripe events built from the OpenAPI resource fixtures', () => {
  const resources = obj(obj(readFixture('stripe/payloads/openapi-resource-fixtures.json')).resources);
  const envelope = obj((readFixture('stripe/payloads/plan.created.openapi-fixture.json') as PayloadFixture).body);
  const eventOf = (id: string, type: string, object: unknown) =>
    utf8(JSON.stringify({ ...envelope, id, type, data: { object } }, null, 2));
  const profile = stripeProfile({ metadataKey: 'order' });

  it('reads a payment_intent.succeeded and a refund about the same payment as different receipts', () => {
    const pi = obj(resources.payment_intent);
    const refund = { ...obj(resources.refund), payment_intent: pi.id };
    const paid = profile.extract({
      rawBody: eventOf('evt_paid', 'payment_intent.succeeded', { ...pi, metadata: { order: 'ord_1' } }),
    });
    const refunded = profile.extract({ rawBody: eventOf('evt_refund', 'refund.created', refund) });
    expect(paid).toMatchObject({
      objectId: pi.id,
      paymentId: pi.id,
      amountMinor: pi.amount,
      currency: String(pi.currency).toUpperCase(),
      merchantReference: 'ord_1',
    });
    expect(refunded).toMatchObject({
      objectId: obj(resources.refund).id,
      paymentId: pi.id,
      amountMinor: obj(resources.refund).amount,
    });
    expect(paid.key?.equals(refunded.key as RequestKey)).toBe(false);
  });

  it('reads charge and checkout.session resources, including an expanded payment_intent', () => {
    const charge = obj(resources.charge);
    const expanded = profile.extract({
      rawBody: eventOf('evt_c', 'charge.succeeded', { ...charge, payment_intent: resources.payment_intent }),
    });
    expect(expanded.paymentId).toBe(obj(resources.payment_intent).id);
    const session = obj(resources['checkout.session']);
    const withRef = profile.extract({
      rawBody: eventOf('evt_s', 'checkout.session.completed', { ...session, client_reference_id: 'att_9' }),
    });
    expect(withRef).toMatchObject({ merchantReference: 'att_9', amountMinor: session.amount_total, currency: null });
  });
});

describe('Payme JSON-RPC calls (fixtures payme/rpc)', () => {
  const rpc = (method: string) => obj(readFixture(`payme/rpc/${method}.json`));
  const check = obj(rpc('CheckPerformTransaction').request_example);
  const profile = paymeProfile({ accountKey: 'phone' });
  const call = (body: unknown) => profile.extract({ rawBody: utf8(JSON.stringify(body)) });

  it('covers every rpc fixture file', () => {
    expect(
      fixtureFiles('rpc')
        .map((f) => f.split('/').pop())
        .sort(),
    ).toEqual([
      'CancelTransaction.json',
      'CheckPerformTransaction.json',
      'CheckTransaction.json',
      'CreateTransaction.json',
      'GetStatement.json',
      'PerformTransaction.json',
    ]);
  });

  it('CheckPerformTransaction: tiyin amount, UZS, account reference, no receipt key', () => {
    const params = obj(check.params);
    expect(call(check)).toMatchObject({
      eventType: 'CheckPerformTransaction',
      eventId: null,
      objectId: null,
      amountMinor: params.amount,
      currency: 'UZS',
      merchantReference: obj(params.account).phone,
      key: null,
    });
  });

  it('CreateTransaction: the documented partial example lacks amount and account, the completed one extracts', () => {
    const partial = obj(rpc('CreateTransaction').request_example_partial);
    expect(() => call(partial)).toThrow(MalformedWebhookPayload);
    const params: Json = {
      ...obj(partial.params),
      amount: obj(check.params).amount,
      account: obj(check.params).account,
    };
    const event = call({ ...partial, params });
    expect(event).toMatchObject({
      objectId: params.id,
      amountMinor: params.amount,
      occurredAtMs: params.time,
      merchantReference: obj(params.account).phone,
    });
    expect(event.key?.equals(RequestKey.forEvent('payme', params.id as string, 'CreateTransaction'))).toBe(true);
  });

  it('PerformTransaction and CancelTransaction on one transaction are different receipts', () => {
    const perform = call(rpc('PerformTransaction').request_example);
    const cancel = call(rpc('CancelTransaction').request_example);
    expect(perform.objectId).toBe(cancel.objectId);
    expect(perform.key).not.toBeNull();
    expect(perform.key?.equals(cancel.key as RequestKey)).toBe(false);
    expect(perform.key?.equals(call(rpc('PerformTransaction').request_example).key as RequestKey)).toBe(true);
  });

  it('CheckTransaction and GetStatement are read-only: no receipt key', () => {
    expect(call(rpc('CheckTransaction').request_shape)).toMatchObject({ eventType: 'CheckTransaction', key: null });
    expect(call(rpc('GetStatement').request_shape)).toMatchObject({ eventType: 'GetStatement', key: null });
  });

  it('refuses unknown methods, fractional amounts and second timestamps', () => {
    expect(() => call({ method: 'DropTables', params: {} })).toThrow(MalformedWebhookPayload);
    expect(() => call({ ...check, params: { ...obj(check.params), amount: 500000.5 } })).toThrow(/params\.amount/);
    expect(() => call({ ...check, params: { ...obj(check.params), amount: '500000' } })).toThrow(
      MalformedWebhookPayload,
    );
    const create = { method: 'CreateTransaction', params: { id: 'x', time: 1399114284, amount: 1, account: {} } };
    expect(() => call(create)).toThrow(/params\.time/);
  });
});

describe('Click Prepare / Complete (fixtures click/signature)', () => {
  const vector = (n: string) => readFixture(`click/signature/${n}`) as Vector;
  const profile = clickProfile();
  const form = (raw: string) => new URLSearchParams(raw);

  it('extracts every Click fixture body with the amount converted from soums to tiyin', () => {
    for (const file of fixtureFiles('signature').filter((f) => f.startsWith('click/'))) {
      const raw = (readFixture(file) as Vector).raw_body;
      const f = form(raw);
      const event = profile.extract({ rawBody: bodyBytes(raw) });
      expect(event, file).toMatchObject({
        eventId: null,
        eventType: f.get('action') === '0' ? 'prepare' : 'complete',
        objectId: f.get('click_trans_id'),
        paymentId: f.get('click_paydoc_id'),
        amountMinor: twoDecimals(f.get('amount') ?? ''),
        currency: 'UZS',
        merchantReference: f.get('merchant_trans_id'),
        occurredAtMs: null,
      });
    }
  });

  it('keys Prepare and Complete of one click_trans_id differently', () => {
    const prepare = profile.extract({ rawBody: bodyBytes(vector('01-prepare-valid.json').raw_body) });
    const complete = profile.extract({ rawBody: bodyBytes(vector('02-complete-valid.json').raw_body) });
    expect(prepare.objectId).toBe(complete.objectId);
    expect(prepare.key?.equals(complete.key as RequestKey)).toBe(false);
  });

  it('converts decimal amounts exactly and refuses fractions of a tiyin', () => {
    const raw = vector('01-prepare-valid.json').raw_body;
    const withAmount = (a: string) => raw.replace(/amount=[^&]*/, `amount=${a}`);
    expect(profile.extract({ rawBody: utf8(withAmount('1000.00')) }).amountMinor).toBe(100_000);
    expect(profile.extract({ rawBody: utf8(withAmount('0.1')) }).amountMinor).toBe(10);
    expect(profile.extract({ rawBody: utf8(withAmount('1000.5')) }).amountMinor).toBe(100_050);
    for (const bad of ['1000.005', '-1', '1e3', '', '1,00', '0x10']) {
      expect(() => profile.extract({ rawBody: utf8(withAmount(bad)) }), bad).toThrow(MalformedWebhookPayload);
    }
  });
});

describe('YooKassa', () => {
  const fixture = readFixture('yookassa/payloads/payment.waiting_for_capture.json') as PayloadFixture;
  const eventTypes = Object.keys(obj(obj(readFixture('yookassa/event-types.json')).events));

  it('a refund.succeeded about the payment is not its duplicate', () => {
    const payment = obj(fixture.body.object);
    expect(eventTypes).toContain('refund.succeeded');
    const refund = {
      id: 'refund-1',
      payment_id: payment.id,
      status: 'succeeded',
      amount: payment.amount,
      created_at: payment.created_at,
    };
    const profile = yookassaProfile();
    const paid = profile.extract({ rawBody: bodyBytes(fixture.raw_body) });
    const refunded = profile.extract({
      rawBody: utf8(JSON.stringify({ type: 'notification', event: 'refund.succeeded', object: refund })),
    });
    expect(refunded).toMatchObject({ objectId: 'refund-1', paymentId: payment.id, amountMinor: paid.amountMinor });
    expect(paid.key?.equals(refunded.key as RequestKey)).toBe(false);
    const succeeded = profile.extract({ rawBody: utf8(fixture.raw_body.replace(/waiting_for_capture/g, 'succeeded')) });
    expect(succeeded.key?.equals(paid.key as RequestKey)).toBe(false);
  });

  it('reads the merchant reference from metadata and amounts in zero- and three-decimal currencies', () => {
    const body = obj(JSON.parse(fixture.raw_body));
    const object = obj(body.object);
    const withMeta = (amount: unknown) =>
      utf8(JSON.stringify({ ...body, object: { ...object, metadata: { order_id: 72 }, amount } }));
    const profile = yookassaProfile();
    expect(profile.extract({ rawBody: withMeta({ value: '1500', currency: 'JPY' }) })).toMatchObject({
      amountMinor: 1500,
      currency: 'JPY',
      merchantReference: '72',
    });
    expect(profile.extract({ rawBody: withMeta({ value: '1.234', currency: 'KWD' }) }).amountMinor).toBe(1234);
    expect(() => profile.extract({ rawBody: withMeta({ value: '1.5', currency: 'JPY' }) })).toThrow(
      MalformedWebhookPayload,
    );
    expect(() => profile.extract({ rawBody: withMeta({ value: 2, currency: 'RUB' }) })).toThrow(
      MalformedWebhookPayload,
    );
    expect(() => profile.extract({ rawBody: withMeta({ value: '2.00', currency: 'rubles' }) })).toThrow(
      MalformedWebhookPayload,
    );
  });
});

describe('GitHub (non-payment)', () => {
  const raw = (readFixture('github/signature/02-octokit-foo-bar.json') as Vector).raw_body;
  const profile = githubProfile();
  const headers = { 'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958', 'X-GitHub-Event': 'ping' };

  it('keys by X-GitHub-Delivery and types by X-GitHub-Event (+ action)', () => {
    const event = profile.extract({ rawBody: bodyBytes(raw), headers });
    expect(event).toMatchObject({
      eventId: headers['X-GitHub-Delivery'],
      eventType: 'ping',
      amountMinor: null,
      payload: JSON.parse(raw),
    });
    expect(event.key?.equals(new RequestKey('github', headers['X-GitHub-Delivery']))).toBe(true);
    const opened = profile.extract({
      rawBody: utf8('{"action":"opened"}'),
      headers: { ...headers, 'X-GitHub-Event': 'issues' },
    });
    expect(opened.eventType).toBe('issues.opened');
  });

  it('reads the form-encoded variant and needs both headers', () => {
    const form = utf8(`payload=${encodeURIComponent(raw)}`);
    const event = profile.extract({
      rawBody: form,
      headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(event.payload).toEqual(JSON.parse(raw));
    expect(() => profile.extract({ rawBody: bodyBytes(raw), headers: { 'X-GitHub-Event': 'ping' } })).toThrow(
      MalformedWebhookPayload,
    );
    expect(() => profile.extract({ rawBody: bodyBytes(raw) })).toThrow(MalformedWebhookPayload);
  });
});

describe('malformed payloads are typed errors, never crashes', () => {
  const profiles: [string, ProviderProfile, string, Record<string, string>][] = [];
  for (const file of payloadFiles) {
    const provider = file.split('/')[0] ?? '';
    const profile = profileFor[provider];
    if (profile)
      profiles.push([file, profile, (readFixture(file) as PayloadFixture).raw_body, swExample.example_headers]);
  }
  for (const file of fixtureFiles('signature').filter((f) => f.startsWith('click/'))) {
    profiles.push([file, clickProfile(), (readFixture(file) as Vector).raw_body, {}]);
  }
  profiles.push([
    'payme CheckPerformTransaction',
    paymeProfile(),
    JSON.stringify(obj(readFixture('payme/rpc/CheckPerformTransaction.json')).request_example),
    {},
  ]);
  profiles.push([
    'github',
    githubProfile(),
    '{"action":"opened"}',
    { 'x-github-delivery': 'd', 'x-github-event': 'issues' },
  ]);

  it.each(profiles)(
    '%s: every truncation either extracts or throws MalformedWebhookPayload',
    (_f, profile, raw, headers) => {
      const bytes = bodyBytes(raw);
      const step = Math.max(1, Math.floor(bytes.length / 200));
      let thrown = 0;
      for (let cut = 0; cut < bytes.length; cut += step) {
        try {
          profile.extract({ rawBody: bytes.subarray(0, cut), headers });
        } catch (error) {
          expect(error).toBeInstanceOf(MalformedWebhookPayload);
          thrown++;
        }
      }
      expect(thrown).toBeGreaterThan(0);
    },
  );

  it.each(profiles)('%s: odd bodies throw MalformedWebhookPayload', (_f, profile, _raw, headers) => {
    const odd = ['', 'null', '[]', '"x"', '42', '\u0000', 'a=1&a=2', '{"action":7}'];
    // Any JSON object without an action is a legal GitHub payload; every payment profile needs its fields.
    if (profile.provider !== 'github') odd.push('{}', '{"type":1,"id":[],"method":{}}');
    for (const body of odd) {
      expect(() => profile.extract({ rawBody: utf8(body), headers }), body).toThrow(MalformedWebhookPayload);
    }
    expect(() => profile.extract({ rawBody: Buffer.from([0xc3, 0x28]), headers })).toThrow(MalformedWebhookPayload);
  });

  it.each(profiles)(
    '%s: a string or parsed object instead of bytes throws RawBodyRequired',
    (_f, profile, raw, headers) => {
      expect(() => profile.extract({ rawBody: raw as unknown as Uint8Array, headers })).toThrow(RawBodyRequired);
      expect(() => profile.extract({ rawBody: JSON.parse('{}') as Uint8Array, headers })).toThrow(RawBodyRequired);
    },
  );

  it('names the field but never its value', () => {
    const secretish = 'card-4444-secret';
    try {
      paymeProfile().extract({
        rawBody: utf8(JSON.stringify({ method: 'CreateTransaction', params: { id: 'x', amount: secretish } })),
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: 'MALFORMED_WEBHOOK_PAYLOAD', provider: 'payme', path: 'params.amount' });
      expect((error as Error).message).not.toContain(secretish);
    }
  });

  it('maps an event id RequestKey refuses (over 160 characters) to MalformedWebhookPayload', () => {
    const envelope = obj((readFixture('stripe/payloads/plan.created.openapi-fixture.json') as PayloadFixture).body);
    const long = utf8(JSON.stringify({ ...envelope, id: `evt_${'x'.repeat(200)}` }));
    expect(() => stripeProfile().extract({ rawBody: long })).toThrow(MalformedWebhookPayload);
  });
});

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidOption, PayonceError } from '../../packages/payonce/src/core/errors.js';
import { basicAuthScheme } from '../../packages/payonce/src/webhooks/verify/basic-auth-scheme.js';
import { clickScheme } from '../../packages/payonce/src/webhooks/verify/click-scheme.js';
import { customScheme } from '../../packages/payonce/src/webhooks/verify/custom-scheme.js';
import { githubScheme } from '../../packages/payonce/src/webhooks/verify/github-scheme.js';
import { hmacScheme } from '../../packages/payonce/src/webhooks/verify/hmac-scheme.js';
import { InvalidVerifyInput } from '../../packages/payonce/src/webhooks/verify/invalid-verify-input.js';
import { paymeAuthScheme } from '../../packages/payonce/src/webhooks/verify/payme-auth-scheme.js';
import { RawBodyRequired } from '../../packages/payonce/src/webhooks/verify/raw-body-required.js';
import { shopifyScheme } from '../../packages/payonce/src/webhooks/verify/shopify-scheme.js';
import type { SignatureScheme, VerifyInput } from '../../packages/payonce/src/webhooks/verify/signature-scheme.js';
import { standardWebhooksScheme } from '../../packages/payonce/src/webhooks/verify/standard-webhooks-scheme.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { hmacOf, signStandardWebhooks, stripeV1 } from './signers.js';

// Secrets generated for these tests (not provider fixtures).
const SW_KEY = Buffer.from('payonce-test-key-0123456789abcdef').toString('base64');
const SW_SECRET = `whsec_${SW_KEY}`;
const SECRET = 'payonce-test-secret';
const NOW_S = 1_767_225_600;
const NOW_MS = NOW_S * 1000;

/** The headers every Shopify webhook carries besides its HMAC (neutral placeholders). */
const SHOPIFY_HEADERS = {
  'x-shopify-topic': 'orders/create',
  'x-shopify-shop-domain': 'shop.example.myshopify.com',
  'x-shopify-api-version': '2025-10',
  'x-shopify-webhook-id': 'webhook-placeholder-1',
};

interface Case {
  name: string;
  scheme: SignatureScheme;
  /** Headers that make `body` authentic at NOW. */
  sign(body: Uint8Array): Record<string, string>;
  /** The header carrying the signature, to be replaced with odd values. */
  signatureHeader: string;
}

const cases: Case[] = [
  {
    name: 'standard-webhooks',
    scheme: standardWebhooksScheme({ secrets: SW_SECRET }),
    sign: (b) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(NOW_S),
      'webhook-signature': signStandardWebhooks(SW_KEY, 'msg_1', NOW_S, b),
    }),
    signatureHeader: 'webhook-signature',
  },
  {
    name: 'svix',
    scheme: standardWebhooksScheme({ secrets: SW_SECRET }),
    sign: (b) => ({
      'svix-id': 'msg_1',
      'svix-timestamp': String(NOW_S),
      'svix-signature': signStandardWebhooks(SW_KEY, 'msg_1', NOW_S, b),
    }),
    signatureHeader: 'svix-signature',
  },
  {
    name: 'stripe',
    scheme: stripeScheme({ secrets: SECRET }),
    sign: (b) => ({ 'stripe-signature': `t=${NOW_S},v1=${stripeV1(SECRET, NOW_S, b)}` }),
    signatureHeader: 'stripe-signature',
  },
  {
    name: 'github',
    scheme: githubScheme({ secrets: SECRET }),
    sign: (b) => ({ 'x-hub-signature-256': `sha256=${hmacOf('sha256', SECRET, b, 'hex')}` }),
    signatureHeader: 'x-hub-signature-256',
  },
  {
    name: 'shopify',
    scheme: shopifyScheme({ secrets: SECRET }),
    sign: (b) => ({ ...SHOPIFY_HEADERS, 'x-shopify-hmac-sha256': hmacOf('sha256', SECRET, b, 'base64') }),
    signatureHeader: 'x-shopify-hmac-sha256',
  },
  {
    name: 'hmac sha512 base64 with timestamp',
    scheme: hmacScheme({
      secrets: SECRET,
      header: 'X-Signature',
      algorithm: 'sha512',
      encoding: 'base64',
      timestampHeader: 'X-Timestamp',
      signedContent: '{timestamp}:{header:X-Request-Id}:{body}',
    }),
    sign: (b) => ({
      'x-timestamp': String(NOW_S),
      'x-request-id': 'req-7',
      'x-signature': createHmac('sha512', SECRET).update(`${NOW_S}:req-7:`).update(b).digest('base64'),
    }),
    signatureHeader: 'x-signature',
  },
  {
    name: 'hmac sha1 hex prefixed',
    scheme: hmacScheme({
      secrets: SECRET,
      header: 'X-Hub-Signature',
      algorithm: 'sha1',
      encoding: 'hex',
      prefix: 'sha1=',
    }),
    sign: (b) => ({ 'x-hub-signature': `sha1=${hmacOf('sha1', SECRET, b, 'hex')}` }),
    signatureHeader: 'x-hub-signature',
  },
];

const json = (text: string) => Buffer.from(text, 'utf8');

describe.each(cases)('$name', ({ name, scheme, sign, signatureHeader }) => {
  const body = json('{"amount":1000,"note":"ok"}');

  it('accepts its own signature and rejects a one-byte change', async () => {
    const headers = sign(body);
    expect(await scheme.verify({ rawBody: body, headers, nowMs: NOW_MS })).toMatchObject({ ok: true, secretIndex: 0 });
    const tampered = Uint8Array.from(body);
    tampered[10] = (tampered[10] ?? 0) ^ 1;
    expect(await scheme.verify({ rawBody: tampered, headers, nowMs: NOW_MS })).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('accepts a Buffer slice, a Fetch Headers object and array header values (Stripe: refuses an array)', async () => {
    const headers = sign(body);
    const padded = Buffer.concat([Buffer.from('xx'), body, Buffer.from('yy')]).subarray(2, 2 + body.length);
    expect((await scheme.verify({ rawBody: padded, headers: new Headers(headers), nowMs: NOW_MS })).ok).toBe(true);
    const arrays = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    // stripe-node refuses a Stripe-Signature given as an array, even of one value.
    expect((await scheme.verify({ rawBody: body, headers: arrays, nowMs: NOW_MS })).ok).toBe(name !== 'stripe');
  });

  it('passes multi-byte and decomposed Unicode bodies over their own bytes and fails across forms', async () => {
    const composed = json('{"name":"Zoë Ågren","city":"Tōkyō","note":"Заказ №72 ✓ 😀"}'.normalize('NFC'));
    const decomposed = json('{"name":"Zoë Ågren","city":"Tōkyō","note":"Заказ №72 ✓ 😀"}'.normalize('NFD'));
    expect(Buffer.compare(composed, decomposed)).not.toBe(0);
    for (const [own, other] of [
      [composed, decomposed],
      [decomposed, composed],
    ] as const) {
      const headers = sign(own);
      expect((await scheme.verify({ rawBody: own, headers, nowMs: NOW_MS })).ok).toBe(true);
      expect(await scheme.verify({ rawBody: other, headers, nowMs: NOW_MS })).toMatchObject({
        ok: false,
        reason: 'signature_mismatch',
      });
    }
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    expect((await scheme.verify({ rawBody: withBom, headers: sign(withBom), nowMs: NOW_MS })).ok).toBe(true);
    expect((await scheme.verify({ rawBody: body, headers: sign(withBom), nowMs: NOW_MS })).ok).toBe(false);
  });

  it.each<[string, unknown]>([
    ['empty', ''],
    ['spaces only', '   '],
    ['short', 'v1'],
    ['prefix only', 'sha256='],
    ['long', 'a'.repeat(100_000)],
    ['non-hex', 'zz'.repeat(32)],
    ['non-base64', '!!!!'.repeat(11)],
    ['non-ASCII', 'é✓😀'.repeat(10)],
    ['latin-1 bytes', '\u00ff\u00fe'.repeat(16)],
    ['control characters', '\u0000\u0001\u001b'],
    ['commas and equals', ',,,===,t=,v1=,'],
    ['number', 12345],
    ['null', null],
    ['empty array', []],
  ])('rejects a %s signature header cleanly', async (_label, value) => {
    const headers: Record<string, unknown> = { ...sign(body), [signatureHeader]: value };
    const result = await scheme.verify({ rawBody: body, headers: headers as VerifyInput['headers'], nowMs: NOW_MS });
    expect(result.ok).toBe(false);
  });

  it('rejects a missing signature header with missing_header', async () => {
    const headers = sign(body);
    delete headers[signatureHeader];
    expect(await scheme.verify({ rawBody: body, headers, nowMs: NOW_MS })).toMatchObject({
      ok: false,
      reason: 'missing_header',
    });
  });

  it.each<[string, unknown]>([
    ['a string', '{"amount":1000}'],
    ['a parsed object', { amount: 1000 }],
    ['an ArrayBuffer', new ArrayBuffer(4)],
    ['a Uint16Array', new Uint16Array(2)],
    ['undefined', undefined],
    ['null', null],
  ])('throws RawBodyRequired for %s instead of bytes', async (_label, rawBody) => {
    const call = async () => scheme.verify({ rawBody, headers: sign(body), nowMs: NOW_MS } as unknown as VerifyInput);
    await expect(call()).rejects.toBeInstanceOf(RawBodyRequired);
    await expect(call()).rejects.toBeInstanceOf(PayonceError);
    await expect(call()).rejects.toMatchObject({ code: 'RAW_BODY_REQUIRED' });
  });

  it('throws InvalidVerifyInput for missing headers or a bad clock', async () => {
    const bad = [
      { rawBody: body, headers: undefined, nowMs: NOW_MS },
      { rawBody: body, headers: 'x', nowMs: NOW_MS },
      { rawBody: body, headers: sign(body), nowMs: Number.NaN },
      { rawBody: body, headers: sign(body), nowMs: '1' },
    ];
    for (const input of bad) {
      await expect(async () => scheme.verify(input as unknown as VerifyInput)).rejects.toMatchObject({
        code: 'INVALID_VERIFY_INPUT',
      });
    }
    await expect(async () => scheme.verify({ rawBody: body, headers: sign(body), nowMs: -1 })).rejects.toBeInstanceOf(
      InvalidVerifyInput,
    );
  });
});

describe('timestamps', () => {
  const body = json('{"id":"evt_1"}');
  const timed: { name: string; scheme: SignatureScheme; sign(ts: string): Record<string, string>; header: string }[] = [
    {
      name: 'standard-webhooks',
      scheme: standardWebhooksScheme({ secrets: SW_SECRET }),
      sign: (ts) => ({
        'webhook-id': 'msg_1',
        'webhook-timestamp': ts,
        'webhook-signature': signStandardWebhooks(SW_KEY, 'msg_1', ts, body),
      }),
      header: 'webhook-timestamp',
    },
    {
      name: 'stripe',
      scheme: stripeScheme({ secrets: SECRET }),
      sign: (ts) => ({ 'stripe-signature': `t=${ts},v1=${stripeV1(SECRET, ts, body)}` }),
      header: 'Stripe-Signature',
    },
    {
      name: 'generic hmac',
      scheme: hmacScheme({
        secrets: SECRET,
        header: 'X-Sig',
        algorithm: 'sha256',
        encoding: 'hex',
        timestampHeader: 'X-Ts',
      }),
      sign: (ts) => ({ 'x-ts': ts, 'x-sig': createHmac('sha256', SECRET).update(`${ts}.`).update(body).digest('hex') }),
      header: 'X-Ts',
    },
  ];

  describe.each(timed)('$name', ({ scheme, sign, header }) => {
    const at = async (ts: string | number) =>
      scheme.verify({ rawBody: body, headers: sign(String(ts)), nowMs: NOW_MS });

    it('accepts the whole 300 s window, both ends inclusive', async () => {
      for (const ts of [NOW_S, NOW_S - 300, NOW_S + 300])
        expect(await at(ts)).toMatchObject({ ok: true, timestampSec: ts });
    });

    it('rejects one second past either end', async () => {
      expect(await at(NOW_S - 301)).toMatchObject({ ok: false, reason: 'timestamp_too_old', header });
      expect(await at(NOW_S + 301)).toMatchObject({ ok: false, reason: 'timestamp_too_new', header });
    });

    it('rejects milliseconds and finer units as wrong units', async () => {
      expect(await at(NOW_MS)).toMatchObject({ ok: false, reason: 'timestamp_wrong_units' });
      expect(await at(`${NOW_MS}000`)).toMatchObject({ ok: false, reason: 'timestamp_wrong_units' });
    });

    it('rejects negative and non-numeric timestamps with their own reasons', async () => {
      expect(await at(-NOW_S)).toMatchObject({ ok: false, reason: 'timestamp_negative' });
      for (const ts of ['hello', '1.5', `${NOW_S}.0`, `+${NOW_S}`, '0x10', '1e9', '١٢٣', `${NOW_S}abc`]) {
        expect(await at(ts), ts).toMatchObject({ ok: false, reason: 'timestamp_malformed' });
      }
    });

    it('honours a custom tolerance', async () => {
      const rebuilt =
        scheme.name === 'stripe'
          ? stripeScheme({ secrets: SECRET, toleranceSeconds: 10 })
          : scheme.name === 'standard-webhooks'
            ? standardWebhooksScheme({ secrets: SW_SECRET, toleranceSeconds: 10 })
            : hmacScheme({
                secrets: SECRET,
                header: 'X-Sig',
                algorithm: 'sha256',
                encoding: 'hex',
                timestampHeader: 'X-Ts',
                toleranceSeconds: 10,
              });
      expect((await rebuilt.verify({ rawBody: body, headers: sign(String(NOW_S - 10)), nowMs: NOW_MS })).ok).toBe(true);
      expect(await rebuilt.verify({ rawBody: body, headers: sign(String(NOW_S - 11)), nowMs: NOW_MS })).toMatchObject({
        reason: 'timestamp_too_old',
      });
    });

    it('reports a forged stale delivery as a signature mismatch, not as stale', async () => {
      const headers = sign(String(NOW_S - 1000));
      const forged = json('{"id":"evt_2"}');
      expect(await scheme.verify({ rawBody: forged, headers, nowMs: NOW_MS })).toMatchObject({
        reason: 'signature_mismatch',
      });
    });
  });
});

describe('rotation with two secrets', () => {
  const body = json('{"id":"evt_rot"}');
  const OLD = 'old-secret-A';
  const NEW = 'new-secret-B';

  it('stripe: accepts either secret, names which one matched, and accepts two v1 values', () => {
    const both = stripeScheme({ secrets: [NEW, OLD] });
    const signedOld = { 'stripe-signature': `t=${NOW_S},v1=${stripeV1(OLD, NOW_S, body)}` };
    const signedNew = { 'stripe-signature': `t=${NOW_S},v1=${stripeV1(NEW, NOW_S, body)}` };
    expect(both.verify({ rawBody: body, headers: signedOld, nowMs: NOW_MS })).toMatchObject({
      ok: true,
      secretIndex: 1,
    });
    expect(both.verify({ rawBody: body, headers: signedNew, nowMs: NOW_MS })).toMatchObject({
      ok: true,
      secretIndex: 0,
    });
    const onlyNew = stripeScheme({ secrets: NEW });
    expect(onlyNew.verify({ rawBody: body, headers: signedOld, nowMs: NOW_MS })).toMatchObject({
      reason: 'signature_mismatch',
    });
    const twoV1 = {
      'stripe-signature': `t=${NOW_S},v1=${stripeV1(OLD, NOW_S, body)},v1=${stripeV1(NEW, NOW_S, body)}`,
    };
    expect(onlyNew.verify({ rawBody: body, headers: twoV1, nowMs: NOW_MS }).ok).toBe(true);
  });

  it('standard webhooks: accepts either secret and a signature list carrying both', () => {
    const oldKey = Buffer.from(OLD).toString('base64');
    const newKey = Buffer.from(NEW).toString('base64');
    const both = standardWebhooksScheme({ secrets: [`whsec_${newKey}`, Buffer.from(OLD)] });
    const header = (key: string) => ({
      'webhook-id': 'msg_r',
      'webhook-timestamp': String(NOW_S),
      'webhook-signature': signStandardWebhooks(key, 'msg_r', NOW_S, body),
    });
    expect(both.verify({ rawBody: body, headers: header(oldKey), nowMs: NOW_MS })).toMatchObject({
      ok: true,
      secretIndex: 1,
    });
    expect(both.verify({ rawBody: body, headers: header(newKey), nowMs: NOW_MS })).toMatchObject({
      ok: true,
      secretIndex: 0,
    });
    const onlyNew = standardWebhooksScheme({ secrets: `whsec_${newKey}` });
    expect(onlyNew.verify({ rawBody: body, headers: header(oldKey), nowMs: NOW_MS }).ok).toBe(false);
    const list = {
      ...header(oldKey),
      'webhook-signature': `${header(oldKey)['webhook-signature']} ${header(newKey)['webhook-signature']}`,
    };
    expect(onlyNew.verify({ rawBody: body, headers: list, nowMs: NOW_MS }).ok).toBe(true);
  });

  it.each([
    [
      'github',
      (s: string[]) => githubScheme({ secrets: s }),
      (s: string) => ({ 'x-hub-signature-256': `sha256=${hmacOf('sha256', s, body, 'hex')}` }),
    ],
    [
      'shopify',
      (s: string[]) => shopifyScheme({ secrets: s }),
      (s: string) => ({ ...SHOPIFY_HEADERS, 'x-shopify-hmac-sha256': hmacOf('sha256', s, body, 'base64') }),
    ],
    [
      'payme',
      (s: string[]) => paymeAuthScheme({ keys: s }),
      (s: string) => ({ authorization: `Basic ${Buffer.from(`Paycom:${s}`).toString('base64')}` }),
    ],
  ] as const)('%s: accepts either secret', (_name, make, sign) => {
    const both = make([NEW, OLD]);
    expect(both.verify({ rawBody: body, headers: sign(OLD), nowMs: NOW_MS })).toMatchObject({
      ok: true,
      secretIndex: 1,
    });
    expect(both.verify({ rawBody: body, headers: sign(NEW), nowMs: NOW_MS })).toMatchObject({
      ok: true,
      secretIndex: 0,
    });
    expect(make([NEW]).verify({ rawBody: body, headers: sign(OLD), nowMs: NOW_MS })).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });
});

describe('scheme specifics', () => {
  const body = json('{"k":1}');

  it('standard webhooks: svix-* headers take precedence over webhook-*', () => {
    const scheme = standardWebhooksScheme({ secrets: SW_SECRET });
    const good = signStandardWebhooks(SW_KEY, 'msg_1', NOW_S, body);
    const headers = {
      'svix-id': 'msg_1',
      'svix-timestamp': String(NOW_S),
      'svix-signature': good,
      'webhook-id': 'msg_other',
      'webhook-signature': 'v1,AAAA',
    };
    expect(scheme.verify({ rawBody: body, headers, nowMs: NOW_MS }).ok).toBe(true);
  });

  it('standard webhooks: a non-UTF-8 body is malformed_body, never decoded lossily', () => {
    const scheme = standardWebhooksScheme({ secrets: SW_SECRET });
    const a = Buffer.from([0x7b, 0xff, 0x7d]);
    const b = Buffer.from([0x7b, 0xfe, 0x7d]);
    // A sender that signed the lossy text (U+FFFD) would make a and b indistinguishable; payonce refuses both.
    const lossy = Buffer.from(a.toString('utf8'), 'utf8');
    const headers = {
      'webhook-id': 'm',
      'webhook-timestamp': String(NOW_S),
      'webhook-signature': signStandardWebhooks(SW_KEY, 'm', NOW_S, lossy),
    };
    expect(scheme.verify({ rawBody: a, headers, nowMs: NOW_MS })).toMatchObject({
      ok: false,
      reason: 'malformed_body',
    });
    expect(scheme.verify({ rawBody: b, headers, nowMs: NOW_MS })).toMatchObject({
      ok: false,
      reason: 'malformed_body',
    });
  });

  it('standard webhooks: a non-ASCII message id is malformed_header', () => {
    const scheme = standardWebhooksScheme({ secrets: SW_SECRET });
    const headers = { 'webhook-id': 'msg é', 'webhook-timestamp': String(NOW_S), 'webhook-signature': 'v1,AAAA' };
    expect(scheme.verify({ rawBody: body, headers, nowMs: NOW_MS })).toMatchObject({ reason: 'malformed_header' });
  });

  it('stripe: two t= values are malformed; a whitespace secret gets a hint without the secret', () => {
    const scheme = stripeScheme({ secrets: `${SECRET} ` });
    const v1 = stripeV1(SECRET, NOW_S, body);
    expect(
      scheme.verify({
        rawBody: body,
        headers: { 'Stripe-Signature': `t=${NOW_S},t=${NOW_S},v1=${v1}` },
        nowMs: NOW_MS,
      }),
    ).toMatchObject({
      reason: 'malformed_header',
    });
    const result = scheme.verify({
      rawBody: body,
      headers: { 'Stripe-Signature': `t=${NOW_S},v1=${v1}` },
      nowMs: NOW_MS,
    });
    expect(result).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(!result.ok && result.detail).toContain('whitespace');
    expect(!result.ok && result.detail).not.toContain(SECRET);
  });

  it('basic auth: scheme name is case-insensitive, credentials are compared whole', () => {
    const scheme = basicAuthScheme({ username: 'hooks', passwords: 'pässwörd' });
    const cred = (s: string) => Buffer.from(s, 'utf8').toString('base64');
    const at = (value: string) => scheme.verify({ rawBody: body, headers: { Authorization: value }, nowMs: NOW_MS });
    expect(at(`basic ${cred('hooks:pässwörd')}`).ok).toBe(true);
    expect(at(`BASIC ${cred('hooks:pässwörd')}`).ok).toBe(true);
    expect(at(`Basic ${cred('hooks:pässwörd2')}`)).toMatchObject({ reason: 'signature_mismatch' });
    expect(at(`Basic ${cred('hooks:pässwör')}`)).toMatchObject({ reason: 'signature_mismatch' });
    expect(at(`Bearer ${cred('hooks:pässwörd')}`)).toMatchObject({ reason: 'malformed_header' });
    expect(at('Basic')).toMatchObject({ reason: 'malformed_header' });
    expect(at('Basic ###')).toMatchObject({ reason: 'malformed_header' });
  });

  it('click: repeated or missing fields and an unknown action are malformed_body', () => {
    const scheme = clickScheme({ secrets: 'S' });
    const form = (s: string) => json(s);
    const base = 'click_trans_id=1&service_id=2&merchant_trans_id=3&amount=10&action=0&sign_time=t&sign_string=';
    expect(scheme.verify({ rawBody: form(`${base}00&amount=20`), headers: {}, nowMs: 0 })).toMatchObject({
      reason: 'malformed_body',
    });
    expect(scheme.verify({ rawBody: form('amount=10'), headers: {}, nowMs: 0 })).toMatchObject({
      reason: 'malformed_body',
    });
    expect(
      scheme.verify({ rawBody: form(base.replace('action=0', 'action=2') + 'a'.repeat(32)), headers: {}, nowMs: 0 }),
    ).toMatchObject({
      reason: 'malformed_body',
    });
    expect(scheme.verify({ rawBody: form(`${base}xyz`), headers: {}, nowMs: 0 })).toMatchObject({
      reason: 'malformed_body',
    });
    expect(scheme.verify({ rawBody: Buffer.from([0xff]), headers: {}, nowMs: 0 })).toMatchObject({
      reason: 'malformed_body',
    });
  });

  it('generic hmac: a missing signed header or timestamp header is missing_header', () => {
    const scheme = hmacScheme({
      secrets: SECRET,
      header: 'X-Sig',
      algorithm: 'sha256',
      encoding: 'hex',
      timestampHeader: 'X-Ts',
      signedContent: '{header:X-Id}|{timestamp}|{body}',
    });
    const sig = createHmac('sha256', SECRET).update(`id1|${NOW_S}|`).update(body).digest('hex');
    const ok = { 'x-sig': sig, 'x-ts': String(NOW_S), 'x-id': 'id1' };
    expect(scheme.verify({ rawBody: body, headers: ok, nowMs: NOW_MS }).ok).toBe(true);
    expect(scheme.verify({ rawBody: body, headers: { ...ok, 'x-id': 'id2' }, nowMs: NOW_MS }).ok).toBe(false);
    expect(
      scheme.verify({ rawBody: body, headers: { 'x-sig': sig, 'x-ts': String(NOW_S) }, nowMs: NOW_MS }),
    ).toMatchObject({
      reason: 'missing_header',
      header: 'X-Id',
    });
    expect(scheme.verify({ rawBody: body, headers: { 'x-sig': sig, 'x-id': 'id1' }, nowMs: NOW_MS })).toMatchObject({
      reason: 'missing_header',
      header: 'X-Ts',
    });
  });

  it('custom: true, false, a full result, a throw and a rejection', async () => {
    const make = (
      fn: () =>
        | boolean
        | Promise<boolean>
        | { ok: false; scheme: string; reason: 'malformed_header'; header: null; detail: string },
    ) => customScheme({ name: 'mine', verify: fn });
    const input = { rawBody: body, headers: {}, nowMs: NOW_MS };
    expect(await make(() => true).verify(input)).toMatchObject({ ok: true, scheme: 'mine' });
    expect(await make(() => false).verify(input)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(
      await make(() => ({ ok: false, scheme: 'mine', reason: 'malformed_header', header: null, detail: 'x' })).verify(
        input,
      ),
    ).toMatchObject({ reason: 'malformed_header' });
    const thrower = make(() => {
      throw new RangeError(`boom ${SECRET}`);
    });
    const thrown = await thrower.verify(input);
    expect(thrown).toMatchObject({ ok: false, reason: 'verifier_error' });
    expect(!thrown.ok && thrown.detail).not.toContain(SECRET);
    expect(await make(() => Promise.reject(new Error('x'))).verify(input)).toMatchObject({ reason: 'verifier_error' });
    await expect(
      make(() => true).verify({ ...input, rawBody: 'text' } as unknown as VerifyInput),
    ).rejects.toBeInstanceOf(RawBodyRequired);
  });
});

describe('configuration errors', () => {
  it.each<[string, () => unknown]>([
    ['no secrets', () => stripeScheme({ secrets: [] })],
    ['an empty secret', () => githubScheme({ secrets: ['ok', ''] })],
    ['a Standard Webhooks secret that is not base64', () => standardWebhooksScheme({ secrets: 'whsec_not base64!' })],
    ['a zero tolerance', () => stripeScheme({ secrets: SECRET, toleranceSeconds: 0 })],
    ['a fractional tolerance', () => standardWebhooksScheme({ secrets: SW_SECRET, toleranceSeconds: 1.5 })],
    ['a bad header name', () => hmacScheme({ secrets: SECRET, header: 'X Sig', algorithm: 'sha256', encoding: 'hex' })],
    [
      'an unknown algorithm',
      () => hmacScheme({ secrets: SECRET, header: 'X', algorithm: 'md5' as 'sha1', encoding: 'hex' }),
    ],
    [
      'an unknown encoding',
      () => hmacScheme({ secrets: SECRET, header: 'X', algorithm: 'sha1', encoding: 'b32' as 'hex' }),
    ],
    [
      'a template without {body}',
      () => hmacScheme({ secrets: SECRET, header: 'X', algorithm: 'sha1', encoding: 'hex', signedContent: 'x' }),
    ],
    [
      'a template with two {body}',
      () =>
        hmacScheme({ secrets: SECRET, header: 'X', algorithm: 'sha1', encoding: 'hex', signedContent: '{body}{body}' }),
    ],
    [
      '{timestamp} without a header',
      () =>
        hmacScheme({
          secrets: SECRET,
          header: 'X',
          algorithm: 'sha1',
          encoding: 'hex',
          signedContent: '{timestamp}{body}',
        }),
    ],
    [
      'an unknown placeholder',
      () =>
        hmacScheme({
          secrets: SECRET,
          header: 'X',
          algorithm: 'sha1',
          encoding: 'hex',
          signedContent: '{nonce}{body}',
        }),
    ],
    [
      'an unbalanced brace',
      () => hmacScheme({ secrets: SECRET, header: 'X', algorithm: 'sha1', encoding: 'hex', signedContent: '{body}}' }),
    ],
    ['a user name with a colon', () => basicAuthScheme({ username: 'a:b', passwords: 'p' })],
    ['no Payme key', () => paymeAuthScheme({ keys: [] })],
    [
      'a custom verify that is not a function',
      () => customScheme({ name: 'x', verify: 1 as unknown as () => boolean }),
    ],
  ])('rejects %s with InvalidOption, without echoing secrets', (_label, build) => {
    let caught: unknown;
    try {
      build();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidOption);
    expect(String((caught as Error).message)).not.toContain(SECRET);
    expect(String((caught as Error).message)).not.toContain('not base64!');
  });
});

describe('odd credentials for the body-independent and body-signed schemes', () => {
  const body = json('{"method":"CheckPerformTransaction","params":{}}');
  const payme = paymeAuthScheme({ keys: SECRET });

  it.each<[string, unknown]>([
    ['empty', ''],
    ['scheme only', 'Basic'],
    ['scheme and spaces', 'Basic    '],
    ['three parts', 'Basic a b'],
    ['non-base64', 'Basic ***'],
    ['unpadded base64', `Basic ${Buffer.from(`Paycom:${SECRET}`).toString('base64').replace(/=+$/, '')}x`],
    ['non-ASCII', 'Basic ÄÖÜ✓'],
    ['long', `Basic ${'A'.repeat(100_000)}`],
    ['no colon', `Basic ${Buffer.from('Paycom').toString('base64')}`],
    ['empty password', `Basic ${Buffer.from('Paycom:').toString('base64')}`],
    ['array', [`Basic ${Buffer.from(`Paycom:${SECRET}`).toString('base64')}`, 'Basic x']],
    ['number', 7],
  ])('payme: rejects a %s Authorization header cleanly', (_label, value) => {
    const result = payme.verify({
      rawBody: body,
      headers: { Authorization: value } as VerifyInput['headers'],
      nowMs: 0,
    });
    expect(result.ok).toBe(false);
  });

  it('payme: accepts the right credentials from a Headers object', () => {
    const headers = new Headers({ authorization: `Basic ${Buffer.from(`Paycom:${SECRET}`).toString('base64')}` });
    expect(payme.verify({ rawBody: body, headers, nowMs: 0 })).toMatchObject({
      ok: true,
      scheme: 'payme',
      timestampSec: null,
    });
  });

  it.each(['', 'x', 'ab'.repeat(15), 'ab'.repeat(17), 'zz'.repeat(16), 'é'.repeat(32), '%00'.repeat(16)])(
    'click: rejects sign_string %j cleanly',
    (sign) => {
      const scheme = clickScheme({ secrets: SECRET });
      const form = `click_trans_id=1&service_id=2&merchant_trans_id=3&amount=10&action=0&sign_time=t&sign_string=${encodeURIComponent(sign)}`;
      expect(scheme.verify({ rawBody: json(form), headers: {}, nowMs: 0 }).ok).toBe(false);
    },
  );
});

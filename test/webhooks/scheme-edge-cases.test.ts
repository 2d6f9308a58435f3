import { describe, expect, it } from 'vitest';
import { shopifyScheme } from '../../packages/payonce/src/webhooks/verify/shopify-scheme.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { bodyBytes, readFixture, type Vector } from './fixtures.js';
import { hmacOf } from './signers.js';

// Issue #11 items 8 and 9: the providers' own SDK test cases (@shopify/shopify-api lib/webhooks/validate.ts and
// its tests; stripe-node Webhooks.ts), ported onto the fixtures' real vectors.

const shopify = readFixture('shopify/signature/01-valid.json') as Vector;
const shopifyBody = bodyBytes(shopify.raw_body);
const scheme = shopifyScheme({ secrets: shopify.secret });
const verifyShopify = (headers: Record<string, string | string[]>, rawBody = shopifyBody) =>
  scheme.verify({ rawBody, headers, nowMs: 0 });

/** The events-style headers Shopify's newer deliveries carry (no `X-` prefix, lower case), same HMAC. */
const eventsHeaders = (): Record<string, string> => ({
  'shopify-hmac-sha256': shopify.headers['X-Shopify-Hmac-Sha256'] as string,
  'shopify-topic': 'products/create',
  'shopify-shop-domain': 'shop1.myshopify.io',
  'shopify-api-version': '2025-10',
  'shopify-webhook-id': 'webhook-placeholder-0001',
  'shopify-event-id': 'evt-placeholder-0001',
});

describe('shopifyScheme: required headers, header names, empty body', () => {
  it('accepts the valid vector (all four required webhook headers present)', () => {
    expect(verifyShopify(shopify.headers)).toMatchObject({ ok: true, secretIndex: 0, timestampSec: null });
  });

  it.each(['X-Shopify-Topic', 'X-Shopify-Shop-Domain', 'X-Shopify-Webhook-Id', 'X-Shopify-API-Version'])(
    'refuses a delivery whose %s is missing or empty, naming the header',
    (header) => {
      const without = Object.fromEntries(Object.entries(shopify.headers).filter(([name]) => name !== header));
      for (const headers of [without, { ...shopify.headers, [header]: '' }, { ...shopify.headers, [header]: '  ' }]) {
        expect(verifyShopify(headers)).toMatchObject({ ok: false, reason: 'missing_header', header });
      }
    },
  );

  it('matches header names in any case', () => {
    const lower = Object.fromEntries(
      Object.entries(shopify.headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    expect(verifyShopify(lower).ok).toBe(true);
  });

  it('accepts an events delivery signed in shopify-hmac-sha256 alone, with its own required headers', () => {
    expect(verifyShopify(eventsHeaders())).toMatchObject({ ok: true, secretIndex: 0 });
    const upper = Object.fromEntries(
      Object.entries(eventsHeaders()).map(([name, value]) => [name.toUpperCase(), value]),
    );
    expect(verifyShopify(upper).ok).toBe(true);
  });

  // @shopify/shopify-api lib/webhooks/__tests__/validate.test.ts "returns false on missing events header".
  it.each(['shopify-topic', 'shopify-shop-domain', 'shopify-api-version', 'shopify-webhook-id', 'shopify-event-id'])(
    'refuses an events delivery without %s, or with it empty',
    (header) => {
      const headers: Record<string, string> = eventsHeaders();
      delete headers[header];
      expect(verifyShopify(headers)).toMatchObject({ ok: false, reason: 'missing_header', header });
      expect(verifyShopify({ ...eventsHeaders(), [header]: '' })).toMatchObject({ ok: false, header });
    },
  );

  it('refuses an events delivery that carries only the classic X-Shopify-Webhook-Id', () => {
    const { 'shopify-webhook-id': id, ...rest } = eventsHeaders();
    const headers = { ...rest, 'X-Shopify-Webhook-Id': id ?? '' };
    expect(verifyShopify(headers)).toMatchObject({ ok: false, reason: 'missing_header', header: 'shopify-webhook-id' });
  });

  it('refuses an events delivery whose HMAC is wrong, before looking at the other headers', () => {
    const headers = {
      ...eventsHeaders(),
      'shopify-hmac-sha256': hmacOf('sha256', 'other-secret', shopifyBody, 'base64'),
    };
    expect(verifyShopify(headers)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses an empty body even with a valid HMAC of it', () => {
    const empty = new Uint8Array(0);
    const headers = { ...shopify.headers, 'X-Shopify-Hmac-Sha256': hmacOf('sha256', shopify.secret, empty, 'base64') };
    expect(verifyShopify(headers, empty)).toMatchObject({ ok: false, reason: 'malformed_body' });
  });
});

const stripe = readFixture('stripe/signature/01-valid-basic.json') as Vector;
const stripeBody = bodyBytes(stripe.raw_body);
const stripeHeader = stripe.headers['Stripe-Signature'] as string;
const verifyStripe = (headers: Record<string, string | string[]>) =>
  stripeScheme({ secrets: stripe.secret }).verify({
    rawBody: stripeBody,
    headers,
    nowMs: (stripe.timestamp_now as number) * 1000,
  });

describe('stripeScheme: one Stripe-Signature header', () => {
  it('accepts the valid vector as one header string', () => {
    expect(verifyStripe({ 'stripe-signature': stripeHeader }).ok).toBe(true);
    expect(verifyStripe({ 'Stripe-Signature': stripeHeader, other: ['x', 'y'] }).ok).toBe(true);
  });

  // stripe-node test/Webhook.spec.ts: "should error if you pass a signature which is an array" ([header]).
  it.each([
    ['a one-element array', (h: string) => [h]],
    ['an array with an empty value', (h: string) => [h, '']],
    ['an array with a blank value', (h: string) => ['  ', h]],
  ])('refuses the valid signature given as %s, as stripe-node does', (_what, asList) => {
    const result = verifyStripe({ 'stripe-signature': asList(stripeHeader) });
    expect(result).toMatchObject({ ok: false, reason: 'malformed_header', header: 'Stripe-Signature' });
    expect(!result.ok && result.detail).toMatch(/given as an array; Stripe sends one Stripe-Signature header/);
  });

  it('refuses Stripe-Signature given as several header values, with a clear reason', () => {
    const [t, v1] = stripeHeader.split(',') as [string, string];
    const several: Record<string, string | string[]>[] = [
      { 'stripe-signature': [t, v1] },
      { 'stripe-signature': [stripeHeader, stripeHeader] },
      { 'Stripe-Signature': t, 'stripe-signature': v1 },
    ];
    for (const headers of several) {
      const result = verifyStripe(headers);
      expect(result).toMatchObject({ ok: false, reason: 'malformed_header', header: 'Stripe-Signature' });
      expect(!result.ok && result.detail).toMatch(/given as 2 header values; Stripe sends one Stripe-Signature header/);
    }
  });
});

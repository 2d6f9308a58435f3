import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../packages/payonce/src/http/canonical-json.js';
import type { HttpExchange } from '../../packages/payonce/src/http/http-exchange.js';
import { canonicalJsonFingerprint, rawBodyFingerprint } from '../../packages/payonce/src/http/request-fingerprint.js';

describe('canonicalJson', () => {
  it.each<[string, string]>([
    ['{ "b": [2, 1], "a": 1 }', '{"a":1,"b":[2,1]}'],
    ['{"a":{"d":null,"c":true}}', '{"a":{"c":true,"d":null}}'],
    ['  [ 1 ,\n 2 ]\r\n', '[1,2]'],
    ['"\\u0041\\/"', '"A/"'],
    ['{"\\u0062":1,"a":2}', '{"a":2,"b":1}'],
    ['12345678901234567890', '12345678901234567890'],
    ['1.0', '1.0'],
    ['-0.5e+10', '-0.5e+10'],
    ['{}', '{}'],
    ['[]', '[]'],
  ])('%s → %s', (text, canonical) => {
    expect(canonicalJson(text)).toBe(canonical);
  });

  it.each([
    '{"a":1,"a":2}',
    '{"a":1,"\\u0061":2}',
    '{"a":1,}',
    '[1,]',
    '01',
    '1.',
    'NaN',
    "{'a':1}",
    '"raw\ttab"',
    '[1] [2]',
    '',
    '{"a" 1}',
  ])('rejects %j', (text) => {
    expect(canonicalJson(text)).toBeNull();
  });

  it('keeps two amounts apart that one double cannot (no float rounding)', () => {
    expect(canonicalJson('{"amount":9007199254740993}')).not.toBe(canonicalJson('{"amount":9007199254740992}'));
  });

  it('returns null, not a crash, for nesting deeper than the stack', () => {
    expect(canonicalJson(`${'['.repeat(200_000)}${']'.repeat(200_000)}`)).toBeNull();
  });
});

const encode = (text: string) => new TextEncoder().encode(text);
const exchange = (body: string, overrides: Partial<HttpExchange> = {}): HttpExchange => ({
  method: 'POST',
  route: '/v1/payments',
  target: '/v1/payments',
  principal: 'acct_1',
  headers: { 'content-type': 'application/json' },
  body: encode(body),
  ...overrides,
});

describe('fingerprints', () => {
  const a = '{"amount":100,"currency":"EUR","tags":["x","y"]}';
  const reordered = '{ "tags": ["x", "y"], "currency": "EUR", "amount": 100 }';
  const arrayOrder = '{"amount":100,"currency":"EUR","tags":["y","x"]}';

  it('raw: any byte of difference is a different request; array order matters', () => {
    expect(rawBodyFingerprint(exchange(a))).toBe(rawBodyFingerprint(exchange(a)));
    expect(rawBodyFingerprint(exchange(a))).toMatch(/^[0-9a-f]{64}$/);
    expect(rawBodyFingerprint(exchange(reordered))).not.toBe(rawBodyFingerprint(exchange(a)));
    expect(rawBodyFingerprint(exchange(arrayOrder))).not.toBe(rawBodyFingerprint(exchange(a)));
  });

  it('canonical: member order and whitespace do not matter; array order and number literals do', () => {
    expect(canonicalJsonFingerprint(exchange(reordered))).toBe(canonicalJsonFingerprint(exchange(a)));
    expect(canonicalJsonFingerprint(exchange(arrayOrder))).not.toBe(canonicalJsonFingerprint(exchange(a)));
    expect(canonicalJsonFingerprint(exchange(a.replace('100', '100.0')))).not.toBe(
      canonicalJsonFingerprint(exchange(a)),
    );
  });

  it('canonical: a non-JSON media type, invalid UTF-8 or invalid JSON is hashed raw', () => {
    const text = { 'content-type': 'text/plain' };
    expect(canonicalJsonFingerprint(exchange(reordered, { headers: text }))).not.toBe(
      canonicalJsonFingerprint(exchange(a, { headers: text })),
    );
    expect(canonicalJsonFingerprint(exchange(a, { headers: text }))).toBe(rawBodyFingerprint(exchange(a)));
    expect(canonicalJsonFingerprint(exchange('{bad'))).toBe(rawBodyFingerprint(exchange('{bad')));
    const latin1 = { ...exchange(''), body: new Uint8Array([0x7b, 0xff, 0x7d]) };
    expect(canonicalJsonFingerprint(latin1)).toBe(rawBodyFingerprint(latin1));
    const vendor = { 'content-type': 'application/vnd.acme+json; charset=utf-8' };
    expect(canonicalJsonFingerprint(exchange(reordered, { headers: vendor }))).toBe(
      canonicalJsonFingerprint(exchange(a, { headers: vendor })),
    );
  });

  it.each([rawBodyFingerprint, canonicalJsonFingerprint])(
    '%o covers method, route and concrete target',
    (fingerprint) => {
      const base = fingerprint(exchange(a));
      expect(fingerprint(exchange(a, { method: 'PATCH' }))).not.toBe(base);
      expect(fingerprint(exchange(a, { route: '/v1/refunds' }))).not.toBe(base);
      // The concrete path (and query) within one pattern: /orders/A vs /orders/B is a different request.
      const onA = { route: '/v1/payments/:id', target: '/v1/payments/pay_A' };
      expect(fingerprint(exchange(a, { ...onA, target: '/v1/payments/pay_B' }))).not.toBe(
        fingerprint(exchange(a, onA)),
      );
      expect(fingerprint(exchange(a, { ...onA, target: '/v1/payments/pay_A?x=1' }))).not.toBe(
        fingerprint(exchange(a, onA)),
      );
      expect(fingerprint(exchange(a, onA))).toBe(fingerprint(exchange(a, { ...onA })));
      expect(fingerprint(exchange(a, { principal: 'acct_2' }))).toBe(base); // the principal scopes the key instead
    },
  );

  it('cannot be confused by moving bytes between route and body', () => {
    const one = rawBodyFingerprint(exchange('x', { route: '/a' }));
    const two = rawBodyFingerprint(exchange('', { route: '/ax' }));
    expect(one).not.toBe(two);
  });
});

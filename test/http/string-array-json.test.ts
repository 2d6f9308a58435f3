import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { HttpExchange } from '../../packages/payonce/src/http/http-exchange.js';
import { httpRequestKey } from '../../packages/payonce/src/http/http-request-key.js';
import { canonicalJsonFingerprint, rawBodyFingerprint } from '../../packages/payonce/src/http/request-fingerprint.js';
import { plainStringArrayJson, stringArrayJson } from '../../packages/payonce/src/http/string-array-json.js';

/** Strings at every edge of what JSON escapes: quotes, backslash, controls, DEL, non-ASCII, lone surrogates. */
const EDGES = [
  '',
  ' ',
  '~',
  '!',
  '#',
  '[',
  ']',
  '"',
  '\\',
  'a"b',
  'a\\b',
  '\u0000',
  '\n',
  '\u001f',
  '\u007f',
  'é',
  '€',
  '😀',
  '\ud800',
  'x\udfffy',
  '\u2028',
  '/v1/payments/:id?x=1&y=%22',
];

/** A deterministic pseudo-random string of code units from the whole UTF-16 range, ASCII-heavy. */
function randomString(seed: number): string {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state;
  };
  let text = '';
  const length = next() % 12;
  for (let i = 0; i < length; i++) {
    const roll = next() % 10;
    text += String.fromCharCode(roll < 7 ? next() % 128 : roll < 9 ? next() % 0x800 : next() % 0x10000);
  }
  return text;
}

const sha256 = (...parts: (string | Uint8Array)[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
};

describe('stringArrayJson', () => {
  it('is JSON.stringify of the array, character for character, for every edge and 5 000 random strings', () => {
    const strings = [...EDGES, ...Array.from({ length: 5_000 }, (_, i) => randomString(i + 1))];
    for (const text of strings) {
      for (const parts of [[text], ['POST', text], [text, '/r', text]]) {
        expect(stringArrayJson(parts)).toBe(JSON.stringify(parts));
        const plain = plainStringArrayJson(parts);
        if (plain !== null) {
          expect(plain).toBe(JSON.stringify(parts));
          expect(Buffer.byteLength(plain)).toBe(plain.length); // pure ASCII
        }
      }
    }
    expect(stringArrayJson([])).toBe('[]');
    // A JavaScript caller's non-strings keep JSON.stringify's encoding (the stored formats never change).
    const loose = ['POST', undefined, 5, null, true] as unknown as string[];
    expect(plainStringArrayJson(loose)).toBeNull();
    expect(stringArrayJson(loose)).toBe(JSON.stringify(loose));
  });

  it('takes the direct join only for printable ASCII without quote or backslash', () => {
    expect(plainStringArrayJson(['POST', '/v1/payments/:id', 'k-1 ~!#'])).toBe('["POST","/v1/payments/:id","k-1 ~!#"]');
    for (const text of ['"', '\\', '\n', '\u007f', 'é', '\ud800']) expect(plainStringArrayJson(['a', text])).toBeNull();
  });
});

describe('the stored formats built with it', () => {
  const exchange = (target: string, body: string): HttpExchange => ({
    method: 'POST',
    route: '/v1/payments',
    target,
    principal: 'acct_1',
    headers: { 'content-type': 'application/json' },
    body: new TextEncoder().encode(body),
  });

  it('the fingerprint is SHA-256 of its documented head and the body, for plain and escaped targets', () => {
    for (const target of [
      '/v1/payments?x=1',
      '/v1/payments?q="a"',
      '/v1/payments?q=\\',
      '/v1/paiements/é',
      '/\u0001',
    ]) {
      const head = `payonce-http-fingerprint/2\n${JSON.stringify(['POST', '/v1/payments', target, 'raw'])}\n`;
      expect(rawBodyFingerprint(exchange(target, '{"amount":100}'))).toBe(sha256(head, '{"amount":100}'));
      const canonical = `payonce-http-fingerprint/2\n${JSON.stringify(['POST', '/v1/payments', target, 'canonical-json'])}\n`;
      expect(canonicalJsonFingerprint(exchange(target, '{ "b": 1, "a": 2 }'))).toBe(sha256(canonical, '{"a":2,"b":1}'));
    }
    // The value stored receipts hold: pinned, so a change of the format cannot pass unnoticed.
    expect(rawBodyFingerprint(exchange('/v1/payments?x=1', '{"amount":100}'))).toBe(
      '45d2aaedd82b37a978c4ded3e09161655a70a12c4e3ab049e30a37417ceab3b6',
    );
  });

  it("the key's external id is SHA-256 of its documented JSON scope, for plain and escaped parts", () => {
    for (const [principal, key] of [
      ['acct_1', '8e03978e'],
      ['acct "1"', 'k\\1'],
      ['компания', 'ключ'],
      ['a\u0000b', '\ud83d'],
    ] as const) {
      const scope = JSON.stringify(['payonce-http-key/1', principal, 'POST', '/v1/payments', key]);
      expect(httpRequestKey('http', principal, 'POST', '/v1/payments', key).externalId).toBe(sha256(scope));
    }
    expect(httpRequestKey('http', 'acct_1', 'POST', '/v1/payments', '8e03978e').externalId).toBe(
      'd4ea5c68408216b2f3e58989fd46a0f1055bdee66246385d2d64982320a98318',
    );
  });
});

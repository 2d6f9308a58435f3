import { describe, expect, it } from 'vitest';
import {
  MAX_IDEMPOTENCY_KEY_CHARS,
  parseIdempotencyKey,
} from '../../packages/payonce/src/http/idempotency-key-header.js';

describe('parseIdempotencyKey', () => {
  it.each<[string, string, 'sf-string' | 'token']>([
    ['"8e03978e-40d5-43e8-bc93-6894a57f9324"', '8e03978e-40d5-43e8-bc93-6894a57f9324', 'sf-string'],
    ['8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324', 'token'],
    ['"a\\"b"', 'a"b', 'sf-string'],
    ['"a\\\\b"', 'a\\b', 'sf-string'],
    ['"inner space"', 'inner space', 'sf-string'],
    ['"k";a=1;b="x";c;d=?1;e=tok;f=:AQ==:;g=1.5', 'k', 'sf-string'],
    ['"k"; a=1', 'k', 'sf-string'],
    ['bare with space', 'bare with space', 'token'],
    ['KG5LxwFBepaKHyUD', 'KG5LxwFBepaKHyUD', 'token'],
    [`"${'x'.repeat(MAX_IDEMPOTENCY_KEY_CHARS)}"`, 'x'.repeat(255), 'sf-string'],
    ['x'.repeat(MAX_IDEMPOTENCY_KEY_CHARS), 'x'.repeat(255), 'token'],
  ])('accepts %s', (value, key, form) => {
    expect(parseIdempotencyKey(value)).toEqual({ kind: 'valid', key, form });
  });

  it.each<[string, RegExp]>([
    ['', /empty/],
    ['""', /empty/],
    ['"   "', /only whitespace/],
    ['" a"', /leading or trailing/],
    ['"a "', /leading or trailing/],
    [' a', /leading or trailing/],
    ['x'.repeat(256), /256 characters/],
    [`"${'x'.repeat(256)}"`, /256 characters/],
    ['a\tb', /control/],
    ['a\u0000b', /control/],
    ['a\u007fb', /control/],
    ['caf\u00e9', /non-ASCII/],
    ['"caf\u00e9"', /printable ASCII/],
    ['"a\tb"', /printable ASCII/],
    ['"open', /no closing quote/],
    ['"a\\nb"', /backslash/],
    ['"a"b', /parameters/],
    ['"a", "b"', /parameters/],
    ['"a";', /parameters/],
    ['"a";K=1', /parameters/],
    ['"a";k=', /parameters/],
    ['a, b', /comma/],
  ])('rejects %j (%s)', (value, reason) => {
    const parsed = parseIdempotencyKey(value);
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.reason).toMatch(reason);
  });

  it('never quotes the key in the reason', () => {
    const parsed = parseIdempotencyKey('secret-key-material\u0001');
    expect(parsed.kind === 'invalid' && parsed.reason).not.toContain('secret');
  });

  it('treats an absent header as missing and two header lines as invalid', () => {
    expect(parseIdempotencyKey(undefined)).toEqual({ kind: 'missing' });
    expect(parseIdempotencyKey([])).toEqual({ kind: 'missing' });
    expect(parseIdempotencyKey(['"a"'])).toEqual({ kind: 'valid', key: 'a', form: 'sf-string' });
    expect(parseIdempotencyKey(['"a"', '"b"'])).toEqual({
      kind: 'invalid',
      reason: expect.stringMatching(/more than once/),
    });
  });
});

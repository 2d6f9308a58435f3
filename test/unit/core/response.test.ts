import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { fingerprint } from '../../../packages/payonce/src/core/fingerprint.js';
import { toStoredResponse } from '../../../packages/payonce/src/core/response.js';

describe('toStoredResponse', () => {
  it('defaults to 200, no headers, empty body', () => {
    const response = toStoredResponse(undefined);
    expect(response.status).toBe(200);
    expect(response.headers).toEqual({});
    expect(response.body.byteLength).toBe(0);
  });

  it('stores strings as UTF-8 without normalisation', () => {
    expect([...toStoredResponse({ body: 'e\u0301' }).body]).toEqual([0x65, 0xcc, 0x81]);
    expect([...toStoredResponse({ body: '\u00e9' }).body]).toEqual([0xc3, 0xa9]);
  });

  it('keeps a view of exactly the given bytes', () => {
    const backing = new Uint8Array([9, 1, 2, 3, 9]);
    expect([...toStoredResponse({ body: backing.subarray(1, 4) }).body]).toEqual([1, 2, 3]);
  });

  it.each([99, 600, 200.5, Number.NaN])('rejects status %s', (status) => {
    expect(() => toStoredResponse({ status })).toThrow(InvalidOption);
  });

  it('stores an ArrayBuffer and any ArrayBufferView exactly, and refuses bodies that are not bytes or text', () => {
    expect([...toStoredResponse({ body: new Uint8Array([1, 2]).buffer }).body]).toEqual([1, 2]);
    const view = new DataView(new Uint8Array([7, 8, 9]).buffer, 1, 2);
    expect([...toStoredResponse({ body: view }).body]).toEqual([8, 9]);
    for (const body of [42, { a: 1 }, [1, 2]]) {
      expect(() => toStoredResponse({ body: body as unknown as string })).toThrow(InvalidOption);
    }
    expect(() => toStoredResponse(7)).toThrow(InvalidOption);
    expect(() => toStoredResponse({ body: 'abc' }, 2)).toThrow(InvalidOption);
  });

  it('rejects non-string header values', () => {
    expect(() => toStoredResponse({ headers: { 'x-n': 1 as unknown as string } })).toThrow(InvalidOption);
  });
});

describe('fingerprint', () => {
  it('is SHA-256 hex of the raw bytes (FIPS 180-2 "abc" vector)', () => {
    expect(fingerprint('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(fingerprint(new TextEncoder().encode('abc'))).toBe(fingerprint('abc'));
  });

  it('distinguishes composed and decomposed forms', () => {
    expect(fingerprint('\u00e9')).not.toBe(fingerprint('e\u0301'));
  });
});

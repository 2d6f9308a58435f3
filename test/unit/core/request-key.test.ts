import { describe, expect, it } from 'vitest';
import { InvalidRequestKey } from '../../../packages/payonce/src/core/errors.js';
import { MAX_KEY_PART_CHARS, RequestKey, requestKey } from '../../../packages/payonce/src/core/request-key.js';

describe('RequestKey', () => {
  it.each<[string, string, string]>([
    ['', 'evt_1', 'provider'],
    ['stripe', '', 'externalId'],
    ['stripe', 'a'.repeat(161), 'externalId'],
    ['s'.repeat(161), 'evt', 'provider'],
    ['stripe', 'evt\u0000', 'externalId'],
    ['stri\u0000pe', 'evt', 'provider'],
    ['stripe', 'evt\ud800', 'externalId'],
  ])('rejects (%j, %j) naming the %s part', (provider, id, part) => {
    const error = (() => {
      try {
        new RequestKey(provider, id);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidRequestKey);
    expect((error as InvalidRequestKey).part).toBe(part);
    expect((error as InvalidRequestKey).code).toBe('INVALID_REQUEST_KEY');
  });

  it('rejects non-string parts', () => {
    expect(() => new RequestKey(42 as unknown as string, 'evt')).toThrow(InvalidRequestKey);
    expect(() => new RequestKey('stripe', undefined as unknown as string)).toThrow(InvalidRequestKey);
  });

  it('counts code points, not UTF-16 units: 160 emoji are allowed, 161 are not', () => {
    expect(new RequestKey('p', '😀'.repeat(MAX_KEY_PART_CHARS)).externalId).toHaveLength(320);
    expect(() => new RequestKey('p', '😀'.repeat(MAX_KEY_PART_CHARS + 1))).toThrow(InvalidRequestKey);
  });

  it('compares byte for byte and is immutable', () => {
    const a = requestKey('stripe', 'evt_A');
    expect(a.equals(new RequestKey('stripe', 'evt_A'))).toBe(true);
    expect(a.equals(new RequestKey('stripe', 'evt_a'))).toBe(false);
    expect(Object.isFrozen(a)).toBe(true);
    expect(a.toString()).toBe('stripe/evt_A');
  });

  it('builds composite keys so a refund is not a duplicate of its payment', () => {
    const paid = RequestKey.forEvent('payme', 'tx_1', 'paid');
    const refunded = RequestKey.forEvent('payme', 'tx_1', 'refunded');
    expect(paid.equals(refunded)).toBe(false);
    expect(paid.externalId).toBe('tx_1:paid');
    expect(() => RequestKey.forEvent('payme', '', 'paid')).toThrow(InvalidRequestKey);
    expect(() => RequestKey.forEvent('payme', 'x'.repeat(150), 'refunded-partially')).toThrow(InvalidRequestKey);
  });
});

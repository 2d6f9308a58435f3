import { describe, expect, it } from 'vitest';
import { currencyExponent, minorUnitsFromDecimal } from '../../packages/payonce/src/webhooks/providers/minor-units.js';

describe('minorUnitsFromDecimal', () => {
  it.each<[string, string, number | undefined]>([
    ['1000.00', 'UZS', 100_000],
    ['1000', 'UZS', 100_000],
    ['2.00', 'RUB', 200],
    ['0.01', 'RUB', 1],
    ['0.1', 'EUR', 10],
    ['19.99', 'USD', 1999],
    ['2.000', 'RUB', 200],
    ['1500', 'JPY', 1500],
    ['1500.0', 'JPY', 1500],
    ['1.234', 'KWD', 1234],
    ['1.2345', 'CLF', 12_345],
    ['90071992547409.91', 'USD', 9_007_199_254_740_991],
    ['90071992547409.92', 'USD', undefined],
    ['0.005', 'RUB', undefined],
    ['1.5', 'JPY', undefined],
    ['-1', 'USD', undefined],
    ['1e3', 'USD', undefined],
    ['1,00', 'USD', undefined],
    [' 1', 'USD', undefined],
    ['.5', 'USD', undefined],
    ['5.', 'USD', undefined],
    ['', 'USD', undefined],
    ['١٢', 'USD', undefined],
  ])('%s %s → %s', (value, currency, expected) => {
    expect(minorUnitsFromDecimal(value, currency)).toBe(expected);
  });

  it('is exact where floats are not', () => {
    expect(0.29 * 100).not.toBe(29);
    expect(minorUnitsFromDecimal('0.29', 'USD')).toBe(29);
    expect(minorUnitsFromDecimal('1.005', 'KWD')).toBe(1005);
  });

  it('knows the exponents that are not 2', () => {
    expect([
      currencyExponent('UZS'),
      currencyExponent('RUB'),
      currencyExponent('JPY'),
      currencyExponent('BHD'),
    ]).toEqual([2, 2, 0, 3]);
  });
});

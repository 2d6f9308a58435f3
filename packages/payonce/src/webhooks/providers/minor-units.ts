/** ISO 4217 currencies whose minor unit is not 2 decimal places (ISO 4217 list one, "Minor unit" column). */
const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/**
 * Decimal places of the minor unit of an ISO-4217 currency: 2 unless listed otherwise (JPY 0, KWD 3, CLF 4).
 * UZS (Payme, Click) and RUB (YooKassa) are 2: 1 sum = 100 tiyin, 1 ruble = 100 kopecks.
 * @see ISO 4217 list one; https://www.six-group.com/en/products-services/financial-information/data-standards.html
 */
export function currencyExponent(currency: string): number {
  return Object.hasOwn(EXPONENTS, currency) ? (EXPONENTS[currency] ?? 2) : 2;
}

/**
 * Converts a decimal amount in major units (`"1000.00"` soums, `"2.00"` rubles) to integer minor units, exactly,
 * with string arithmetic (never through a float). Extra fraction digits are accepted only when they are zeros
 * (`"2.000"` RUB is 200, `"2.005"` is refused). Returns `undefined` for anything that is not a non-negative
 * plain decimal (`"1e3"`, `"-1"`, `" 1"`, `"1,00"`, `""`) or does not fit a safe integer.
 * @example minorUnitsFromDecimal('1000.00', 'UZS') // 100000
 */
export function minorUnitsFromDecimal(value: string, currency: string): number | undefined {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(value);
  if (!match) return undefined;
  const exponent = currencyExponent(currency);
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? '';
  if (/[1-9]/.test(fraction.slice(exponent))) return undefined;
  const minor =
    BigInt(whole) * 10n ** BigInt(exponent) + BigInt(fraction.slice(0, exponent).padEnd(exponent, '0') || '0');
  return minor <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(minor) : undefined;
}

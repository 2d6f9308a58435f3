import { invalidParam } from './wire/stripe-api-error.js';

/** Currencies whose amounts are whole units (¥1 = `amount=1`). @see https://docs.stripe.com/currencies#zero-decimal */
export const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);

/**
 * Three-decimal currencies: amounts are in thousandths but Stripe requires the last digit to be 0 (rounded to
 * the nearest ten). @see https://docs.stripe.com/currencies#three-decimal
 */
export const THREE_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/**
 * Stripe's minimum charge amounts of common currencies, in minor units (e.g. USD 0.50 = 50). Currencies not
 * listed here get no minimum in the sandbox. @see https://docs.stripe.com/currencies#minimum-and-maximum-charge-amounts
 */
export const MINIMUM_AMOUNTS: Readonly<Record<string, number>> = Object.freeze({
  usd: 50,
  eur: 50,
  gbp: 30,
  aud: 50,
  cad: 50,
  chf: 50,
  dkk: 250,
  hkd: 400,
  jpy: 50,
  mxn: 1000,
  nok: 300,
  nzd: 50,
  pln: 200,
  sek: 300,
  sgd: 50,
  brl: 50,
  czk: 1500,
  huf: 17500,
  inr: 50,
  ron: 200,
  thb: 1000,
});

/** Largest `amount` Stripe accepts: eight digits. */
export const MAX_AMOUNT = 99_999_999;

/** Number of decimals of a currency's minor unit: 0, 2 or 3. */
export function currencyDecimals(currency: string): 0 | 2 | 3 {
  const code = currency.toLowerCase();
  if (ZERO_DECIMAL_CURRENCIES.has(code)) return 0;
  return THREE_DECIMAL_CURRENCIES.has(code) ? 3 : 2;
}

/**
 * Checks a currency code: three letters, answered lower case.
 * @throws {StripeApiError} 400 `parameter_invalid` with `param: 'currency'`.
 */
export function checkCurrency(currency: string | undefined, param = 'currency'): string {
  if (currency === undefined) throw invalidParam(param, `Missing required param: ${param}.`, 'parameter_missing');
  if (!/^[A-Za-z]{3}$/.test(currency)) {
    throw invalidParam(
      param,
      `Invalid currency: ${currency.slice(0, 10)}. Stripe currencies are three-letter ISO codes.`,
    );
  }
  return currency.toLowerCase();
}

/**
 * Checks a charge amount in minor units against Stripe's per-currency rules: a positive integer of at most eight
 * digits, at least the currency's minimum (unless `withMinimum` is false), and for three-decimal currencies a
 * multiple of 10.
 * @throws {StripeApiError} 400 `amount_too_small`, `amount_too_large` or `invalid_charge_amount` (param `amount`).
 */
export function checkAmount(amount: number, currency: string, param = 'amount', withMinimum = true): number {
  const minimum = withMinimum ? (MINIMUM_AMOUNTS[currency] ?? 1) : 1;
  if (amount < minimum) {
    throw invalidParam(param, `Amount must be at least ${minimum} ${currency} minor units.`, 'amount_too_small');
  }
  if (amount > MAX_AMOUNT) {
    throw invalidParam(param, `Amount must be no more than ${MAX_AMOUNT} minor units.`, 'amount_too_large');
  }
  if (currencyDecimals(currency) === 3 && amount % 10 !== 0) {
    throw invalidParam(
      param,
      `Amounts in ${currency} must end in 0 (three-decimal currency: round to the nearest ten).`,
      'invalid_charge_amount',
    );
  }
  return amount;
}

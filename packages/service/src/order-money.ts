import { InvalidMoney } from 'payonce/internal/payments/invalid-money.js';
import type { Money } from 'payonce/internal/payments/money.js';

/**
 * Largest order amount the reference service accepts, in minor units: 99 999 999 (999 999.99 EUR), the cap of the
 * sandbox provider's create call. An order above it could never be paid, so it is refused up front (400
 * `INVALID_MONEY`) instead of failing at checkout.
 */
export const MAX_ORDER_AMOUNT_MINOR = 99_999_999;

/**
 * Largest UZS order amount, in tiyin: any safe integer. A UZS order is paid through Payme, Click or Uzum, whose
 * amounts in tiyin pass the sandbox's cap at about 1 000 000 sum (Uzum's own example charges 125 000 000 tiyin); a
 * checkout of such an order through the sandbox is declined (the attempt `failed`), never a crash.
 */
export const MAX_UZS_AMOUNT_MINOR = Number.MAX_SAFE_INTEGER;

/** The only currency Payme, Click and Uzum charge: Uzbek sum, amounts in tiyin (1 sum = 100 tiyin). */
export const UZS = 'UZS';

/**
 * Telegram Stars: not an ISO-4217 code, accepted for an order only when the service has a Telegram bot (its orders in
 * `XTR` are paid with Stars; amounts in whole stars). @see https://core.telegram.org/bots/api#sendinvoice
 */
export const XTR = 'XTR';

/** ISO-4217 codes this Node knows (`Intl.supportedValuesOf('currency')`, ICU's list of active codes). */
const ISO_4217: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** A short description of a JSON value, for a detail that never echoes the value itself. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length <= 3 ? 'a string' : `a string of ${value.length} characters`;
  if (typeof value === 'number') return numberKind(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function numberKind(value: number): string {
  if (!Number.isFinite(value)) return 'a non-finite number';
  if (!Number.isInteger(value)) return 'a non-integer number';
  if (value === 0) return 'zero';
  if (value < 0) return 'a negative integer';
  return Number.isSafeInteger(value) ? 'an integer' : 'an integer beyond 2^53';
}

/** What is wrong with `amountMinor`, or `null`. */
function amountProblem(amountMinor: unknown, currency: unknown): string | null {
  if (amountMinor === undefined) return 'amountMinor is missing (a positive integer of minor units)';
  const positive = typeof amountMinor === 'number' && Number.isInteger(amountMinor) && amountMinor > 0;
  if (!positive) return `amountMinor must be a positive integer of minor units, got ${kindOf(amountMinor)}`;
  const max = currency === 'UZS' ? MAX_UZS_AMOUNT_MINOR : MAX_ORDER_AMOUNT_MINOR;
  if (amountMinor > max) return `amountMinor must be at most ${max} minor units`;
  return null;
}

/** What is wrong with `currency`, or `null`. */
function currencyProblem(currency: unknown, stars: boolean): string | null {
  if (currency === undefined) return 'currency is missing (an ISO-4217 code like EUR)';
  if (stars && currency === XTR) return null;
  if (typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) && ISO_4217.has(currency)) return null;
  const got = typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? 'an unknown code' : kindOf(currency);
  return `currency must be an ISO-4217 code like EUR, got ${got}`;
}

/**
 * The money of a `POST /orders` body, checked at the service edge before `Payments.createOrder`:
 * `amountMinor` a safe integer 1–`MAX_ORDER_AMOUNT_MINOR` (UZS: 1–`MAX_UZS_AMOUNT_MINOR`), `currency` an ISO-4217 code Node's ICU knows
 * (`Intl.supportedValuesOf('currency')`, upper case, e.g. `EUR`, `UZS`). Every bad field is named, in one detail
 * (`amountMinor must be a positive integer of minor units, got a negative integer; currency must be …`), which
 * says what is wrong (missing, the type, zero, negative, a length) without quoting the request's value
 * (docs/errors.md: `detail` never contains request bodies).
 * A missing `currency` is `defaultCurrency` when given (a service without the Stripe-shaped provider: `UZS`).
 * With `stars` (a service with a Telegram bot) `XTR` is accepted too: whole Telegram Stars, 1–`MAX_ORDER_AMOUNT_MINOR`.
 * @throws {InvalidMoney} for anything else (400 `INVALID_MONEY`).
 * @see docs/design.md §2 "Money and time"; ISO 4217; docs/service.md.
 */
export function orderMoneyOf(body: Readonly<Record<string, unknown>>, defaultCurrency?: string, stars = false): Money {
  const { amountMinor } = body;
  const currency = body.currency === undefined ? defaultCurrency : body.currency;
  const problems = [amountProblem(amountMinor, currency), currencyProblem(currency, stars)].filter(
    (p): p is string => p !== null,
  );
  if (problems.length > 0) throw new InvalidMoney(problems.join('; '));
  return { amountMinor: amountMinor as number, currency: currency as string };
}

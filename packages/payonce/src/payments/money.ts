import { InvalidMoney } from './invalid-money.js';

/** An amount: integer minor units (cents, kopecks, tiyin) of an ISO-4217 currency. Never a float. @see docs/design.md §2. */
export interface Money {
  readonly amountMinor: number;
  /** Three upper-case letters, e.g. `EUR`, `UZS`. */
  readonly currency: string;
}

/**
 * Checks and returns `money`.
 * @throws {InvalidMoney} `amountMinor` is not a positive safe integer, or `currency` is not `/^[A-Z]{3}$/`.
 */
export function checkMoney(money: Money): Money {
  const { amountMinor, currency } = money;
  if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0) {
    throw new InvalidMoney(`amountMinor must be a positive integer of minor units, got ${String(amountMinor)}`);
  }
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) {
    throw new InvalidMoney(`currency must be an ISO-4217 code like EUR, got ${String(currency)}`);
  }
  return Object.freeze({ amountMinor, currency });
}

/**
 * The stop line when the merchant refuses the configured credentials: `code` as the provider's protocol names it
 * (`-32504`, `-1 SIGN CHECK FAILED`, `10001`) and `flags`, the options that carry them (`--key`, …).
 */
export function credentialsRefused(code: string, flags: string): string {
  return `the configured key/credentials were refused (${code}): check ${flags}`;
}

/**
 * The stop line when the merchant refuses an order at its own amount (`amountTiyin`) as a wrong amount (`code`): the
 * usual cause is an amount given in sum where every provider protocol counts tiyin.
 */
export function ownAmountRefused(amountTiyin: number, code: string): string {
  return `the order's own amount (${amountTiyin} tiyin) was refused as a wrong amount (${code}): amounts are in tiyin (1 sum = 100 tiyin)`;
}

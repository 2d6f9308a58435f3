/** Sum with at most 2 decimals, no sign, no exponent: `1000`, `1000.5`, `1000.00`. */
const SUM = /^(0|[1-9][0-9]{0,12})(?:\.([0-9]{1,2}))?$/;

/**
 * Click's `amount` (a sum in soums, as Click formats it: `1000` or `1000.00`) as an integer of tiyin (1 sum = 100
 * tiyin), computed on the digits (never through a float). `null` for anything else: a sign, an exponent, a comma,
 * more than 2 decimals (`1000.001` is refused, not rounded), or more than 13 integer digits (so
 * the tiyin stay a safe integer).
 * @see https://docs.click.uz/en/click-api-request/ ("amount float: Payment Amount (in soums)"); fixtures
 *   click/signature/05-amount-string-formatting.json (the signature covers the string as sent).
 * @example tiyinFromClickAmount('1000.5') // 100050
 */
export function tiyinFromClickAmount(amount: string): number | null {
  const match = SUM.exec(amount);
  if (match === null) return null;
  const fraction = (match[2] ?? '').padEnd(2, '0');
  return Number(match[1]) * 100 + Number(fraction);
}

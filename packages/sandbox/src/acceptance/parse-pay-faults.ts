import { InvalidOption } from 'payonce/internal/core/errors.js';

/** What one fault name sets: `field` to `true`, or, when `count` is given, to a `name=count` count (`count` by default). */
export interface PayFaultField<F> {
  readonly field: keyof F & string;
  /** The count when the name comes without `=count`; absent for a plain flag. */
  readonly count?: number;
}

/** Reads a `name=count` fault count 1…100 (`fallback` when no count is given). @throws {InvalidOption} (`faults`) */
function faultCount(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 100) {
    throw new InvalidOption('faults', `${name}=${value}: the count must be an integer 1…100`);
  }
  return Number(value);
}

/**
 * Reads a provider payer's fault list such as `lost-answer,duplicate=2,parallel=5` into a frozen object: each
 * comma-separated name (blanks ignored) sets the field `fields` gives it; a later name overrides an earlier one.
 * @throws {InvalidOption} (`faults`) a name not in `names` (the message lists them), or a count that is not 1…100.
 */
export function parsePayFaults<F extends object, N extends string>(
  text: string,
  names: readonly N[],
  fields: Readonly<Record<N, PayFaultField<F>>>,
): F {
  const faults: Record<string, boolean | number> = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const [name = '', value] = part.split('=', 2);
    if (!(names as readonly string[]).includes(name)) {
      throw new InvalidOption('faults', `unknown fault "${name}" (known: ${names.join(', ')})`);
    }
    const { field, count } = fields[name as N];
    faults[field] = count === undefined ? true : faultCount(name, value, count);
  }
  return Object.freeze(faults) as F;
}

import { InvalidOption } from 'payonce/internal/core/errors.js';

/** The faults the Payme sandbox injects while paying one order. */
export interface PaymePayFaults {
  /** Create, Perform and Cancel are made, their first answer thrown away, then repeated as Payme does. */
  readonly lostAnswer?: boolean;
  /** Create, Perform and Cancel first stop waiting after `timeoutAbortMs` (the outcome unknown), then repeat. */
  readonly timeout?: boolean;
  /** Each write call is sent this many extra times after its answer; every answer must equal the first. */
  readonly duplicate?: number;
  /** Each write call is sent as this many simultaneous copies; their results must agree. */
  readonly parallel?: number;
  /** Perform and a CancelTransaction (reason 3) are sent at the same time. */
  readonly cancelWhilePerforming?: boolean;
  /** 12 hours (and a minute) pass between Create and Perform: Perform must be -31008, the transaction -1 reason 4. */
  readonly expire?: boolean;
}

/** The names `parsePaymeFaults` accepts (`payonce sandbox payme --faults`). */
export const PAYME_FAULT_NAMES = Object.freeze([
  'lost-answer',
  'timeout',
  'duplicate',
  'parallel',
  'cancel-while-performing',
  'expire',
] as const);

function countOf(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 100) {
    throw new InvalidOption('faults', `${name}=${value}: the count must be an integer 1…100`);
  }
  return Number(value);
}

/**
 * Reads a fault list such as `lost-answer,duplicate=2,parallel=5,expire` (names of {@link PAYME_FAULT_NAMES};
 * `duplicate` and `parallel` take a count, default 1 and 3).
 * @throws {InvalidOption} (`faults`) an unknown name, or a count that is not 1…100.
 */
export function parsePaymeFaults(text: string): PaymePayFaults {
  const faults: { -readonly [K in keyof PaymePayFaults]: PaymePayFaults[K] } = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const [name = '', value] = part.split('=', 2);
    if (name === 'lost-answer') faults.lostAnswer = true;
    else if (name === 'timeout') faults.timeout = true;
    else if (name === 'duplicate') faults.duplicate = countOf(name, value, 1);
    else if (name === 'parallel') faults.parallel = countOf(name, value, 3);
    else if (name === 'cancel-while-performing') faults.cancelWhilePerforming = true;
    else if (name === 'expire') faults.expire = true;
    else throw new InvalidOption('faults', `unknown fault "${name}" (known: ${PAYME_FAULT_NAMES.join(', ')})`);
  }
  return Object.freeze(faults);
}

import { parsePayFaults } from '../acceptance/parse-pay-faults.js';

/** The faults the Uzum sandbox injects while paying one order. */
export interface UzumPayFaults {
  /** /create, /confirm and /reverse are sent and their first answer thrown away; Uzum Bank then asks /status. */
  readonly lostAnswer?: boolean;
  /** /create, /confirm and /reverse first stop waiting after `timeoutAbortMs` (the outcome unknown). */
  readonly timeout?: boolean;
  /** Each write call is sent this many extra times after its answer; every answer must agree with the first. */
  readonly duplicate?: number;
  /** Each write call is sent as this many simultaneous copies; their answers must agree. */
  readonly parallel?: number;
  /** Uzum Bank reverses the created transaction instead of confirming it: nothing is fulfilled. */
  readonly reverse?: boolean;
}

/** The names `parseUzumFaults` accepts (`payonce sandbox uzum --inject`). */
export const UZUM_FAULT_NAMES = Object.freeze(['lost-answer', 'timeout', 'duplicate', 'parallel', 'reverse'] as const);

/**
 * Reads a fault list such as `lost-answer,duplicate=2,parallel=5` (names of {@link UZUM_FAULT_NAMES}; `duplicate`
 * and `parallel` take a count, default 1 and 3).
 * @throws {InvalidOption} (`faults`) an unknown name, or a count that is not 1…100.
 */
export function parseUzumFaults(text: string): UzumPayFaults {
  return parsePayFaults<UzumPayFaults, (typeof UZUM_FAULT_NAMES)[number]>(text, UZUM_FAULT_NAMES, {
    'lost-answer': { field: 'lostAnswer' },
    timeout: { field: 'timeout' },
    duplicate: { field: 'duplicate', count: 1 },
    parallel: { field: 'parallel', count: 3 },
    reverse: { field: 'reverse' },
  });
}

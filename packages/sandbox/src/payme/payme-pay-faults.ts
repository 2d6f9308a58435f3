import { parsePayFaults } from '../acceptance/parse-pay-faults.js';

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

/**
 * Reads a fault list such as `lost-answer,duplicate=2,parallel=5,expire` (names of {@link PAYME_FAULT_NAMES};
 * `duplicate` and `parallel` take a count, default 1 and 3).
 * @throws {InvalidOption} (`faults`) an unknown name, or a count that is not 1…100.
 */
export function parsePaymeFaults(text: string): PaymePayFaults {
  return parsePayFaults<PaymePayFaults, (typeof PAYME_FAULT_NAMES)[number]>(text, PAYME_FAULT_NAMES, {
    'lost-answer': { field: 'lostAnswer' },
    timeout: { field: 'timeout' },
    duplicate: { field: 'duplicate', count: 1 },
    parallel: { field: 'parallel', count: 3 },
    'cancel-while-performing': { field: 'cancelWhilePerforming' },
    expire: { field: 'expire' },
  });
}

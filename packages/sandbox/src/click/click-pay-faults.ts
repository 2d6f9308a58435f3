import { parsePayFaults } from '../acceptance/parse-pay-faults.js';

/** The faults the Click sandbox injects while paying one order. */
export interface ClickPayFaults {
  /** Prepare and Complete are sent, their first answer thrown away, then sent again as Click repeats them. */
  readonly lostAnswer?: boolean;
  /** Prepare and Complete first stop waiting after `timeoutAbortMs` (the outcome unknown), then are sent again. */
  readonly timeout?: boolean;
  /** Each call is sent this many extra times after its answer; every answer must agree with the first. */
  readonly duplicate?: number;
  /** Each call is sent as this many simultaneous copies; their answers must agree. */
  readonly parallel?: number;
  /** The payment fails at Click: the Complete carries `error=-5017` and must be answered -9 (nothing fulfilled). */
  readonly failedPayment?: boolean;
}

/** The names `parseClickFaults` accepts (`payonce sandbox click --inject`). */
export const CLICK_FAULT_NAMES = Object.freeze([
  'lost-answer',
  'timeout',
  'duplicate',
  'parallel',
  'failed-payment',
] as const);

/**
 * Reads a fault list such as `lost-answer,duplicate=2,parallel=5` (names of {@link CLICK_FAULT_NAMES}; `duplicate`
 * and `parallel` take a count, default 1 and 3).
 * @throws {InvalidOption} (`faults`) an unknown name, or a count that is not 1…100.
 */
export function parseClickFaults(text: string): ClickPayFaults {
  return parsePayFaults<ClickPayFaults, (typeof CLICK_FAULT_NAMES)[number]>(text, CLICK_FAULT_NAMES, {
    'lost-answer': { field: 'lostAnswer' },
    timeout: { field: 'timeout' },
    duplicate: { field: 'duplicate', count: 1 },
    parallel: { field: 'parallel', count: 3 },
    'failed-payment': { field: 'failedPayment' },
  });
}

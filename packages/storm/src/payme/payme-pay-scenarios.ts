import { isAccountCode, PAYME_CODES, type PaymePayResult } from '@payonce/sandbox/payme';
import { doublePayScenario, faultyPayScenario, lostAnswerScenario, type PayWords } from '../provider/pay-scenarios.js';
import type { PaymeScenario } from './payme-scenario.js';
import { describePay } from './payme-steps.js';

/** How Payme's payments read in the common pay scenarios. */
export const PAYME_PAY_WORDS: PayWords<PaymePayResult> = {
  noun: 'transaction',
  charged: 'performed',
  isCharged: (r) => r.outcome === 'performed',
  describe: describePay,
};

/** Payme's documented refusals of a transaction for an order that has one: -31008 or the account range. */
const isRefusal = (r: PaymePayResult): boolean =>
  r.outcome === 'refused' && (r.refusedWith === PAYME_CODES.impossible || isAccountCode(r.refusedWith));

/** Payme storm scenario 1: two Payme transactions for one order. */
export const paymeDoublePay: PaymeScenario = doublePayScenario(
  {
    id: 1,
    name: 'double pay: two Payme transactions for one order',
    defends: 'repeated payment attempt',
    criterion:
      'two Payme transactions pay the same order at once, then a third after: exactly one is performed, the others ' +
      'are refused (-31008, or an account error -31050…-31099), one fulfilment',
  },
  PAYME_PAY_WORDS,
  { accepts: isRefusal, text: '-31008 or -31050…-31099' },
);

/** Payme storm scenario 2: every call ×10 at once. */
export const paymeParallelCopies: PaymeScenario = faultyPayScenario(
  {
    id: 2,
    name: 'parallel copies: every call ×10 at once',
    defends: 'repeated HTTP request',
    criterion:
      'CreateTransaction, PerformTransaction each sent as 10 simultaneous copies: every copy answers the same, one ' +
      'transaction, one perform, one fulfilment',
  },
  PAYME_PAY_WORDS,
  { parallel: 10 },
  'paid with 10 parallel copies of each call',
);

/** Payme storm scenario 3: lost answers and timeouts, then Payme's repeat. */
export const paymeLostAnswer: PaymeScenario = lostAnswerScenario(
  {
    id: 3,
    name: 'lost answer, then the repeat',
    defends: 'repeated HTTP request',
    criterion:
      'each write call’s first answer is lost (one order) or times out (another), and Payme repeats it: the repeat ' +
      'answers from the current state, each order is performed once and fulfilled once',
  },
  PAYME_PAY_WORDS,
);

/** Payme storm scenario 4: every write call repeated 3 times after its answer. */
export const paymeDuplicates: PaymeScenario = faultyPayScenario(
  {
    id: 4,
    name: 'duplicate calls: every write call 3 more times',
    defends: 'repeated business effect',
    criterion:
      'CreateTransaction and PerformTransaction each repeated 3 times after their answer: every repeat answers the ' +
      'same (the stored create_time and perform_time), one perform, one fulfilment',
  },
  PAYME_PAY_WORDS,
  { duplicate: 3 },
  'paid with every write call repeated 3 times',
);

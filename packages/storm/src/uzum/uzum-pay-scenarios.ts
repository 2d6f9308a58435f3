import { UZUM_CODES, type UzumPayResult } from '@payonce/sandbox/uzum';
import { doublePayScenario, faultyPayScenario, lostAnswerScenario, type PayWords } from '../provider/pay-scenarios.js';
import type { UzumScenario } from './uzum-scenario.js';
import { describeUzumPay } from './uzum-storm-context.js';

/** How Uzum Bank's payments read in the common pay scenarios. */
export const UZUM_PAY_WORDS: PayWords<UzumPayResult> = {
  noun: 'transaction',
  charged: 'confirmed',
  isCharged: (r) => r.outcome === 'confirmed',
  describe: describeUzumPay,
};

/** Uzum storm scenario 1: two Uzum transactions for one order. */
export const uzumDoublePay: UzumScenario = doublePayScenario(
  {
    id: 1,
    name: 'double pay: two Uzum transactions for one order',
    defends: 'repeated payment attempt',
    criterion:
      'two Uzum Bank transactions (two tabs) pay the same order at once, then a third after: exactly one is ' +
      'confirmed, the others refused by /check or /create with 10008 (paid, or another live transaction)',
  },
  UZUM_PAY_WORDS,
  { accepts: (r) => r.outcome === 'refused' && r.refusedWith === UZUM_CODES.alreadyPaid, text: '10008' },
);

/** Uzum storm scenario 2: every write call ×10 at once. */
export const uzumParallelCopies: UzumScenario = faultyPayScenario(
  {
    id: 2,
    name: 'parallel copies: /create and /confirm ×10 at once',
    defends: 'repeated HTTP request',
    criterion:
      '/create and /confirm each sent as 10 simultaneous copies: every copy answers the same, one confirmed ' +
      'transaction, one paid transition, one fulfilment',
  },
  UZUM_PAY_WORDS,
  { parallel: 10 },
  'paid with 10 parallel copies of each write call',
);

/** Uzum storm scenario 3: lost answers and timeouts, then Uzum Bank's /status and repeat. */
export const uzumLostAnswer: UzumScenario = lostAnswerScenario(
  {
    id: 3,
    name: 'lost answer, then /status and the repeat',
    defends: 'repeated HTTP request',
    criterion:
      'the first answer of /create and /confirm is lost (one order) or times out (another); Uzum Bank asks /status ' +
      'and repeats: the answers agree with /status, each order confirmed once and fulfilled once',
  },
  UZUM_PAY_WORDS,
);

/** Uzum storm scenario 4: every write call repeated 3 times after its answer. */
export const uzumDuplicates: UzumScenario = faultyPayScenario(
  {
    id: 4,
    name: 'duplicate calls: /create and /confirm 3 more times',
    defends: 'repeated business effect',
    criterion:
      '/create and /confirm each repeated 3 times after their answer: every repeat answers the same (the stored ' +
      'transTime / confirmTime), one confirmed transaction, one fulfilment',
  },
  UZUM_PAY_WORDS,
  { duplicate: 3 },
  'paid with every write call repeated 3 times',
);

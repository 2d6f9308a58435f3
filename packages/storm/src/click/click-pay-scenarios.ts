import { CLICK_CODES, type ClickPayResult } from '@payonce/sandbox/click';
import { doublePayScenario, faultyPayScenario, lostAnswerScenario, type PayWords } from '../provider/pay-scenarios.js';
import type { ClickScenario } from './click-scenario.js';
import { describeClickPay } from './click-storm-context.js';

/** How Click's payments read in the common pay scenarios. */
export const CLICK_PAY_WORDS: PayWords<ClickPayResult> = {
  noun: 'payment',
  charged: 'completed',
  isCharged: (r) => r.outcome === 'completed',
  describe: describeClickPay,
};

/** A second payment's documented refusals: -4 (already paid), -9 (cancelled by a newer Prepare). */
const REFUSALS: readonly number[] = [CLICK_CODES.alreadyPaid, CLICK_CODES.cancelled];

/** Click storm scenario 1: two Click payments for one order. */
export const clickDoublePay: ClickScenario = doublePayScenario(
  {
    id: 1,
    name: 'double pay: two Click payments for one order',
    defends: 'repeated payment attempt',
    criterion:
      'two Click payments (two tabs) pay the same order at once, then a third after: exactly one is completed, the ' +
      'others refused with -4 (already paid) or -9 (cancelled by the newer Prepare), one fulfilment',
  },
  CLICK_PAY_WORDS,
  { accepts: (r) => r.outcome === 'refused' && REFUSALS.includes(r.refusedWith ?? 0), text: '-4 or -9' },
);

/** Click storm scenario 2: every call ×10 at once. */
export const clickParallelCopies: ClickScenario = faultyPayScenario(
  {
    id: 2,
    name: 'parallel copies: Prepare and Complete ×10 at once',
    defends: 'repeated HTTP request',
    criterion:
      'Prepare and Complete each sent as 10 simultaneous copies: every copy answers the same, one completed ' +
      'payment, one paid transition, one fulfilment',
  },
  CLICK_PAY_WORDS,
  { parallel: 10 },
  'paid with 10 parallel copies of each call',
);

/** Click storm scenario 3: lost answers and timeouts, then Click's repeat. */
export const clickLostAnswer: ClickScenario = lostAnswerScenario(
  {
    id: 3,
    name: 'lost answer, then Click’s repeat',
    defends: 'repeated HTTP request',
    criterion:
      'the first answer of Prepare and Complete is lost (one order) or times out (another), and Click repeats the ' +
      'call: the repeat answers from the stored state, each order completed once and fulfilled once',
  },
  CLICK_PAY_WORDS,
);

/** Click storm scenario 4: every call repeated 3 times after its answer. */
export const clickDuplicates: ClickScenario = faultyPayScenario(
  {
    id: 4,
    name: 'duplicate calls: Prepare and Complete 3 more times',
    defends: 'repeated business effect',
    criterion:
      'Prepare and Complete each repeated 3 times after their answer: every repeat answers the same (the stored ' +
      'merchant_prepare_id / merchant_confirm_id, or -4 to a repeated Complete), one completed payment, one ' +
      'fulfilment',
  },
  CLICK_PAY_WORDS,
  { duplicate: 3 },
  'paid with every call repeated 3 times',
);

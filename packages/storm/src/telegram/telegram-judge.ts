import type { TelegramMovement } from '@payonce/sandbox/telegram';
import { orderCountRules } from '../provider/order-rules.js';
import type { HeldOrderCounts } from '../provider/storm-target-capabilities.js';
import type { TelegramOrderJudgement } from './telegram-scenario.js';

/** Everything the storm saw about one order once it settled (or its deadline passed). */
export interface TelegramOrderSnapshot {
  readonly orderId: string;
  /** The sandbox ledger's movements (all orders; the order's are picked by payload). */
  readonly movements: readonly TelegramMovement[];
  /** The target's counts, `null` when `readOrder` failed (`countsError`). */
  readonly counts: HeldOrderCounts | null;
  readonly countsError: string | null;
  readonly timedOut: boolean;
}

const WORDS = { provider: 'Telegram', charged: 'charged', noun: 'payment' } as const;

/** The payments and refunds Telegram's ledger holds for `orderId`, and the net stars. Pure. */
export function telegramCharges(movements: readonly TelegramMovement[], orderId: string) {
  const own = movements.filter((m) => m.payload === orderId);
  const payments = own.filter((m) => m.kind === 'payment');
  const refunds = own.filter((m) => m.kind === 'refund');
  const sum = (list: readonly TelegramMovement[]) => list.reduce((n, m) => n + m.amount, 0);
  return { charges: payments.length, refunds: refunds.length, stars: sum(payments) - sum(refunds) };
}

/**
 * The Telegram storm's rule for one order: at most one charge in Telegram's ledger (a second means a pre-checkout of
 * a paid order was answered ok), at most one paid transition and one fulfilment, nothing lost (charged ⇒ paid;
 * charged and not refunded ⇒ fulfilled), nothing invented (paid or fulfilled ⇒ charged: a forged, foreign or
 * repeated `successful_payment` pays nothing), refunds agreeing, the ledger's stars equal to what the merchant holds.
 * Pure.
 */
export function judgeTelegramOrder(snapshot: TelegramOrderSnapshot): TelegramOrderJudgement {
  const problems: string[] = [];
  const { charges, refunds, stars } = telegramCharges(snapshot.movements, snapshot.orderId);
  if (charges > 1) problems.push(`Telegram charged the buyer ${charges} times for one order (money taken twice)`);
  if (snapshot.counts === null) {
    problems.push(`the target could not report the order (${snapshot.countsError ?? 'unknown error'})`);
  } else {
    orderCountRules(snapshot.counts, charges, refunds, WORDS, problems);
    if (snapshot.counts.heldTiyin !== stars) {
      problems.push(`Telegram's ledger holds ${stars} stars but the merchant holds ${snapshot.counts.heldTiyin}`);
    }
  }
  if (snapshot.timedOut && problems.length === 0) problems.push('the order did not settle before the deadline');
  return Object.freeze({
    orderId: snapshot.orderId,
    charges,
    refunds,
    payerStars: stars,
    merchantStars: snapshot.counts?.heldTiyin ?? 0,
    paidTransitions: snapshot.counts?.paidTransitions ?? 0,
    fulfilments: snapshot.counts?.fulfilments ?? 0,
    targetRefunds: snapshot.counts?.refunds ?? 0,
    problems: Object.freeze(problems),
  });
}

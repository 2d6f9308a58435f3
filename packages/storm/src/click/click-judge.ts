import type { ClickLedgerNote, ClickLedgerTransaction, ClickMovement } from '@payonce/sandbox/click';
import type { LedgerParts } from '../provider/merged-ledger.js';
import { orderCountRules } from '../provider/order-rules.js';
import { type HeldOrderCounts, heldMoneyRule } from '../provider/storm-target-capabilities.js';
import type { ClickOrderJudgement } from './click-scenario.js';

/** Every ledger of a Click scenario as one. */
export type ClickLedgerParts = LedgerParts<Readonly<ClickLedgerTransaction>, ClickMovement, ClickLedgerNote>;

/** Everything the storm saw about one order once it settled (or its deadline passed). */
export interface ClickOrderSnapshot {
  readonly merchantTransId: string;
  readonly ledger: ClickLedgerParts;
  /** The target's counts, `null` when `readOrder` failed (`countsError`). */
  readonly counts: HeldOrderCounts | null;
  readonly countsError: string | null;
  /** True when the deadline passed before the order settled. */
  readonly timedOut: boolean;
}

const WORDS = { provider: 'Click', charged: 'completed', noun: 'payment' } as const;

/** The completed payments (debits) Click's ledger holds for the order, and their tiyin. */
export function clickCharges(ledger: ClickLedgerParts, merchantTransId: string) {
  const ids = new Set(
    ledger.transactions.filter((t) => t.merchantTransId === merchantTransId).map((t) => t.clickTransId),
  );
  const debits = ledger.movements.filter((m) => ids.has(m.clickTransId));
  return { ids, completes: debits.length, tiyin: debits.reduce((sum, m) => sum + m.amountTiyin, 0) };
}

/**
 * The Click storm's rule for one order: at most one payment completed (Click's ledger), at most one paid transition
 * and one fulfilment, nothing lost (completed ⇒ paid and fulfilled), nothing invented (paid or fulfilled ⇒
 * completed), Click's debited tiyin equal to what the merchant holds for the order, every repeat answered like the
 * first (the ledger's breaches), settled before the deadline. Pure.
 */
export function judgeClickOrder(snapshot: ClickOrderSnapshot): ClickOrderJudgement {
  const problems: string[] = [];
  const { ids, completes, tiyin } = clickCharges(snapshot.ledger, snapshot.merchantTransId);
  for (const m of snapshot.ledger.mismatches.filter((x) => ids.has(x.clickTransId))) {
    problems.push(`${m.call} of ${m.clickTransId}: ${m.what}`);
  }
  if (completes > 1) problems.push(`Click completed ${completes} payments for one order (money taken twice)`);
  if (snapshot.counts === null) {
    problems.push(`the target could not report the order (${snapshot.countsError ?? 'unknown error'})`);
  } else {
    orderCountRules(snapshot.counts, completes, 0, WORDS, problems);
    heldMoneyRule(snapshot.counts, tiyin, 'Click', problems);
  }
  if (snapshot.timedOut && problems.length === 0) problems.push('the order did not settle before the deadline');
  return Object.freeze({
    merchantTransId: snapshot.merchantTransId,
    clickTransIds: Object.freeze([...ids]),
    completes,
    payerTiyin: tiyin,
    merchantTiyin: snapshot.counts?.heldTiyin ?? 0,
    paidTransitions: snapshot.counts?.paidTransitions ?? 0,
    fulfilments: snapshot.counts?.fulfilments ?? 0,
    problems: Object.freeze(problems),
  });
}

import type { UzumLedgerNote, UzumLedgerTransaction, UzumMovement } from '@payonce/sandbox/uzum';
import type { LedgerParts } from '../provider/merged-ledger.js';
import { orderCountRules } from '../provider/order-rules.js';
import { type HeldOrderCounts, heldMoneyRule } from '../provider/storm-target-capabilities.js';
import type { UzumOrderJudgement } from './uzum-scenario.js';

/** Every ledger of an Uzum scenario as one. */
export type UzumLedgerParts = LedgerParts<Readonly<UzumLedgerTransaction>, UzumMovement, UzumLedgerNote>;

/** Everything the storm saw about one order once it settled (or its deadline passed). */
export interface UzumOrderSnapshot {
  /** The order's `params` as JSON. */
  readonly params: string;
  readonly ledger: UzumLedgerParts;
  /** The target's counts, `null` when `readOrder` failed (`countsError`). */
  readonly counts: HeldOrderCounts | null;
  readonly countsError: string | null;
  /** True when the deadline passed before the order settled. */
  readonly timedOut: boolean;
}

const WORDS = { provider: 'Uzum Bank', charged: 'confirmed', noun: 'transaction' } as const;

/** The confirms (debits) and refunds Uzum Bank's ledger holds for the order with `params` (JSON), and the net tiyin. */
export function uzumCharges(ledger: UzumLedgerParts, params: string) {
  const ids = new Set(ledger.transactions.filter((t) => JSON.stringify(t.params) === params).map((t) => t.transId));
  const moves = ledger.movements.filter((m) => ids.has(m.transId));
  return {
    ids,
    confirms: moves.filter((m) => m.kind === 'debit').length,
    refunds: moves.filter((m) => m.kind === 'refund').length,
    tiyin: moves.reduce((sum, m) => sum + (m.kind === 'debit' ? m.amountTiyin : -m.amountTiyin), 0),
  };
}

/**
 * The Uzum storm's rule for one order: at most one transaction confirmed (Uzum Bank's ledger), at most one paid
 * transition and one fulfilment, nothing lost (confirmed ⇒ paid; confirmed and not reversed ⇒ fulfilled), nothing
 * invented (paid or fulfilled ⇒ confirmed), refunds agreeing, Uzum Bank's money (debits − refunds) equal to what
 * the merchant holds, every repeat and /status answered like the first (the ledger's breaches). Pure.
 */
export function judgeUzumOrder(snapshot: UzumOrderSnapshot): UzumOrderJudgement {
  const problems: string[] = [];
  const { ids, confirms, refunds, tiyin } = uzumCharges(snapshot.ledger, snapshot.params);
  for (const m of snapshot.ledger.mismatches.filter((x) => ids.has(x.transId))) {
    problems.push(`${m.call} of ${m.transId.slice(0, 8)}: ${m.what}`);
  }
  if (confirms > 1) problems.push(`Uzum Bank confirmed ${confirms} transactions for one order (money taken twice)`);
  if (snapshot.counts === null) {
    problems.push(`the target could not report the order (${snapshot.countsError ?? 'unknown error'})`);
  } else {
    orderCountRules(snapshot.counts, confirms, refunds, WORDS, problems);
    heldMoneyRule(snapshot.counts, tiyin, 'Uzum Bank', problems);
  }
  if (snapshot.timedOut && problems.length === 0) problems.push('the order did not settle before the deadline');
  return Object.freeze({
    params: snapshot.params,
    transIds: Object.freeze([...ids]),
    confirms,
    refunds,
    payerTiyin: tiyin,
    merchantTiyin: snapshot.counts?.heldTiyin ?? 0,
    paidTransitions: snapshot.counts?.paidTransitions ?? 0,
    fulfilments: snapshot.counts?.fulfilments ?? 0,
    targetRefunds: snapshot.counts?.refunds ?? 0,
    problems: Object.freeze(problems),
  });
}

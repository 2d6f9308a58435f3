/** What a target recorded about one order: its paid transitions, fulfilments and refunds. */
export interface OrderCounts {
  /** Times the order moved to paid (a journal row, an outbox job per payment, …): at most 1 is correct. */
  readonly paidTransitions: number;
  /** Fulfilments done (goods shipped, access granted): at most 1 is correct. */
  readonly fulfilments: number;
  /** Refunds the target recorded for the order. */
  readonly refunds: number;
}

/** How the rules name the provider's charge in their messages, e.g. `{ provider: 'Payme', charged: 'performed' }`. */
export interface ChargeWords {
  readonly provider: string;
  /** Past tense of the charge: `performed`, `completed`, `confirmed`. */
  readonly charged: string;
  /** What is charged: `transaction`, `payment`. */
  readonly noun: string;
}

/**
 * The rules every provider storm applies to the target's counts of one order, given the charges and refunds the
 * provider's ledger holds for it: at most one paid transition and one fulfilment, charged ⇒ paid, charged and not
 * refunded ⇒ fulfilled, nothing paid or fulfilled without a charge, refunds agreeing. Appends the broken ones to
 * `problems`. Pure.
 */
export function orderCountRules(
  counts: OrderCounts,
  charges: number,
  refunds: number,
  words: ChargeWords,
  problems: string[],
): void {
  const { provider, charged, noun } = words;
  if (counts.paidTransitions > 1) problems.push(`the order moved to paid ${counts.paidTransitions} times`);
  if (counts.fulfilments > 1) problems.push(`the order was fulfilled ${counts.fulfilments} times`);
  if (charges >= 1 && counts.paidTransitions === 0)
    problems.push(`${provider} ${charged} it but the order was never paid`);
  if (charges > refunds && counts.fulfilments === 0)
    problems.push(`${provider} ${charged} it but it was never fulfilled`);
  if (charges === 0 && (counts.paidTransitions > 0 || counts.fulfilments > 0)) {
    problems.push(
      `the order shows ${counts.paidTransitions} paid transition(s) and ${counts.fulfilments} fulfilment(s) ` +
        `but ${provider} never ${charged} a ${noun} for it`,
    );
  }
  if (counts.refunds !== refunds) {
    problems.push(`${provider} refunded ${refunds} time(s) but the order shows ${counts.refunds} refund(s)`);
  }
}

/** True when nothing more is expected for the order: charged ⇒ paid, kept ⇒ fulfilled, refunds recorded. */
export function isOrderSettled(counts: OrderCounts, charges: number, refunds: number): boolean {
  if (charges >= 1 && counts.paidTransitions === 0) return false;
  if (charges > refunds && counts.fulfilments === 0) return false;
  return counts.refunds >= refunds;
}

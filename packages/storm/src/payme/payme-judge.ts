import type { PaymeLedgerSnapshot } from '@payonce/sandbox/payme';
import { isOrderSettled, orderCountRules } from '../provider/order-rules.js';
import type { PaymeOrderJudgement } from './payme-scenario.js';
import type { PaymeOrderCounts } from './payme-storm-target.js';

/** One transaction of the merchant's GetStatement answer, as the judge reads it. */
export interface StatementEntry {
  readonly id: string;
  readonly amount: number;
  readonly account: Readonly<Record<string, unknown>>;
  readonly state: number;
  readonly perform_time: number;
}

/** Everything the storm saw about one order once it settled (or its deadline passed). */
export interface PaymeOrderSnapshot {
  /** The order's account as JSON (`JSON.stringify(account)`). */
  readonly account: string;
  /** Payme's ledger: every transaction, movement and breach of the scenario (filtered here by account). */
  readonly ledger: PaymeLedgerSnapshot;
  /** The merchant's GetStatement over the scenario's times, `null` when it could not be read (`statementError`). */
  readonly statement: readonly StatementEntry[] | null;
  readonly statementError: string | null;
  /** The target's counts, `null` when `readOrder` failed (`countsError`). */
  readonly counts: PaymeOrderCounts | null;
  readonly countsError: string | null;
  /** True when the deadline passed before the order settled. */
  readonly timedOut: boolean;
}

const accountKey = (account: Readonly<Record<string, unknown>>): string => JSON.stringify(account);

function moneyRules(snapshot: PaymeOrderSnapshot, ids: ReadonlySet<string>, problems: string[]) {
  const moves = snapshot.ledger.movements.filter((m) => ids.has(m.paymeId));
  const performs = moves.filter((m) => m.kind === 'debit').length;
  const refunds = moves.filter((m) => m.kind === 'refund').length;
  const payerTiyin = moves.reduce((sum, m) => sum + (m.kind === 'debit' ? m.amount : -m.amount), 0);
  if (performs > 1) problems.push(`Payme performed ${performs} transactions for one order (money taken twice)`);
  let merchantTiyin = 0;
  if (snapshot.statement === null) {
    problems.push(`GetStatement could not be read (${snapshot.statementError ?? 'unknown error'})`);
  } else {
    const own = snapshot.statement.filter((e) => accountKey(e.account) === snapshot.account);
    const performed = own.filter((e) => e.state === 2 || e.state === -2);
    merchantTiyin = own.filter((e) => e.state === 2).reduce((sum, e) => sum + e.amount, 0);
    if (performed.length > 1)
      problems.push(`the merchant's statement shows ${performed.length} performed transactions`);
    if (merchantTiyin !== payerTiyin) {
      problems.push(`Payme's ledger holds ${payerTiyin} tiyin but the merchant's statement reports ${merchantTiyin}`);
    }
  }
  return { performs, refunds, payerTiyin, merchantTiyin };
}

const WORDS = { provider: 'Payme', charged: 'performed', noun: 'transaction' } as const;

/**
 * The Payme storm's common rule for one order: at most one transaction performed (Payme's ledger and the
 * merchant's statement), at most one paid transition and one fulfilment, Payme's money (debits − refunds) equal to
 * what GetStatement reports, nothing lost (performed ⇒ paid; performed and not refunded ⇒ fulfilled), nothing invented (paid or fulfilled ⇒
 * performed), refunds agreeing, and every repeat answered like the first (the ledger's breaches). Pure.
 */
export function judgePaymeOrder(snapshot: PaymeOrderSnapshot): PaymeOrderJudgement {
  const problems: string[] = [];
  const txs = snapshot.ledger.transactions.filter((t) => accountKey(t.account) === snapshot.account);
  const ids = new Set(txs.map((t) => t.paymeId));
  for (const m of snapshot.ledger.mismatches.filter((x) => ids.has(x.paymeId))) {
    problems.push(`${m.method} of ${m.paymeId.slice(0, 8)}: ${m.what}`);
  }
  const money = moneyRules(snapshot, ids, problems);
  if (snapshot.counts === null) {
    problems.push(`the target could not report the order (${snapshot.countsError ?? 'unknown error'})`);
  } else {
    orderCountRules(snapshot.counts, money.performs, money.refunds, WORDS, problems);
  }
  if (snapshot.timedOut && problems.length === 0) problems.push('the order did not settle before the deadline');
  return Object.freeze({
    account: snapshot.account,
    paymeIds: Object.freeze([...ids]),
    ...money,
    paidTransitions: snapshot.counts?.paidTransitions ?? 0,
    fulfilments: snapshot.counts?.fulfilments ?? 0,
    targetRefunds: snapshot.counts?.refunds ?? 0,
    problems: Object.freeze(problems),
  });
}

/** True when nothing more is expected for the order: performed ⇒ paid, kept ⇒ fulfilled, refunds agree. */
export const isPaymeSettled: (counts: PaymeOrderCounts, performs: number, refunds: number) => boolean = isOrderSettled;

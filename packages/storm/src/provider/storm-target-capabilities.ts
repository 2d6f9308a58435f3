import type { OrderCounts } from './order-rules.js';

/** What a Click or Uzum target reports about one order: {@link OrderCounts} and the money it holds for it. */
export interface HeldOrderCounts extends OrderCounts {
  /** Tiyin the merchant holds as paid for the order: its paid payments minus what it refunded of them. */
  readonly heldTiyin: number;
}

/**
 * The optional capabilities of a provider storm's target, `Ref` naming an order (a `merchant_trans_id`, an Uzum
 * `params` object): a scenario that needs one the target lacks is skipped with the reason, never passed.
 */
export interface StormTargetCapabilities<Ref> {
  /** A short description for the report (no secrets), e.g. `service http://127.0.0.1:3000`. */
  readonly description: string;
  /**
   * Kills the merchant process hard (SIGKILL, no graceful shutdown) and returns once a new process answers; `note`
   * says what was killed. Absent: the crash scenario is skipped.
   */
  crashAndRestart?(): Promise<{ note: string }>;
  /**
   * Runs the order's finished fulfilment job again (an operator's re-run, a redelivered job) and returns a note of
   * what happened; the fulfilment must not happen twice. Absent: the job re-run scenario is skipped.
   */
  rerunFulfilment?(order: Ref): Promise<{ note: string }>;
  /** Why `crashAndRestart` or `rerunFulfilment` is absent, for the skip reason (e.g. "no --admin-token"). */
  readonly missing?: Readonly<{ crash?: string; rerun?: string }>;
}

/**
 * The rule that the provider's books agree with the merchant's for one order: the provider's ledger (charges −
 * refunds, tiyin) equals the money the target holds for it. Appends the breach to `problems`. Pure.
 */
export function heldMoneyRule(counts: HeldOrderCounts, ledgerTiyin: number, provider: string, problems: string[]) {
  if (counts.heldTiyin !== ledgerTiyin) {
    problems.push(`${provider}'s ledger holds ${ledgerTiyin} tiyin but the merchant holds ${counts.heldTiyin}`);
  }
}

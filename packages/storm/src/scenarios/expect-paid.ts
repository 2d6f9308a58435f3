import { isPaidStatus } from '../judge.js';
import type { ScenarioContext } from '../scenario-context.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long {@link expectPaid} still waits when the scenario's own budget is used up, ms (as `conclude()` does). */
const GRACE_MS = 5_000;
const POLL_MS = 50;

/**
 * For a scenario whose criterion says an order ends paid: waits until the provider charged it (sandbox order ledger)
 * and the app shows it paid (a paid status and a paid transition) and fulfilled, or until the scenario's deadline
 * (at least 5 s from now); then records a failure naming what is missing. It checks "at least once": the common
 * rule at `conclude()` then makes it exactly once. Without it an app that never calls the provider passes, since an
 * order with no charge and no effect breaks no rule of the common judge.
 */
export async function expectPaid(ctx: ScenarioContext, orderId: string): Promise<void> {
  const deadline = Date.now() + Math.max(ctx.timeLeftMs(), GRACE_MS);
  for (;;) {
    const ledger = await ctx.sandbox.orderLedger(orderId);
    const view = await ctx.view(orderId);
    const { status } = view.order;
    const paid = ledger.chargeCount > 0 && isPaidStatus(status) && view.paidTransitions > 0;
    if (paid && view.fulfilments.length > 0) return;
    if (Date.now() >= deadline) {
      ctx.expect(
        false,
        `order ${String(orderId).slice(0, 8)} was not paid, though the criterion says it ends paid: the provider ` +
          `charged it ${ledger.chargeCount} time(s); the app shows it ${status} with ${view.paidTransitions} paid ` +
          `transition(s) and ${view.fulfilments.length} fulfilment(s)`,
      );
      return;
    }
    await sleep(POLL_MS);
  }
}

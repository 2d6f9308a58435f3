import { ledgerForTimeline } from '../provider-timeline.js';
import type { ScenarioContext } from '../scenario-context.js';

/**
 * True when the app never got a 2xx answer to its provider call that created the order's payment: every request
 * the sandbox logged under that payment's request id or idempotency key was answered 5xx, dropped or left hanging
 * (a `payonce storm --faults` rule such as `500-after-commit` struck it, and no retry got the stored answer). The
 * app then cannot know the payment's state and rightly shows its attempt `unknown`. False when the order has no
 * payment yet.
 */
export async function appMissedProviderAnswer(ctx: ScenarioContext, orderId: string): Promise<boolean> {
  const ledger = ledgerForTimeline(await ctx.sandbox.ledger());
  const payments = ledger.payments.filter((p) => p.orderId === orderId);
  if (payments.length === 0) return false;
  const requestIds = new Set(payments.map((p) => p.requestId));
  const keys = new Set(payments.map((p) => p.idempotencyKey).filter((key) => key !== null));
  return !ledger.requests.some(
    (r) =>
      (requestIds.has(r.requestId) || (r.idempotencyKey !== null && keys.has(r.idempotencyKey))) &&
      r.status !== null &&
      r.status >= 200 &&
      r.status < 300,
  );
}

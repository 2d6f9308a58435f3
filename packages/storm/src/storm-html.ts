import { type HtmlOrder, type HtmlRun, htmlReport } from './html-report.js';
import type { OrderJudgement, ScenarioResult } from './scenario.js';
import type { StormReport } from './storm-report.js';

/** An order of the Stripe storm in words: status, charges, paid transitions, fulfilments, refunds, deliveries. */
function orderOf(order: OrderJudgement): HtmlOrder {
  const facts = `status ${order.status ?? 'unreadable'}, ${order.charges} charge(s), ${order.paidTransitions} paid transition(s), ${order.fulfilments} fulfilment(s), ${order.refunds} refund(s), ${order.deliveries} deliveries (${order.duplicates} duplicate)`;
  return { orderId: order.orderId, facts, problems: order.problems };
}

function runOf(report: StormReport): HtmlRun {
  return {
    ...report,
    results: report.results.map((result: ScenarioResult) => ({
      ...result,
      extra: `drawn from the seed: ${result.faultPlan.join(', ') || 'nothing'}`,
      orders: result.orders.map(orderOf),
      timeline: result.timeline ?? [],
    })),
  };
}

/**
 * The storm's HTML report (`payonce storm --html FILE`): {@link htmlReport} of the Stripe storm's runs, each with its
 * seed (`--seed` replays it) and, per scenario, what its seed drew; an order's facts are its status, charges, paid
 * transitions, fulfilments, refunds and webhook deliveries (with duplicates).
 */
export function stormHtmlReport(runs: readonly StormReport[], title = 'payonce storm'): string {
  return htmlReport(runs.map(runOf), title);
}

import { type HtmlRun, htmlReport } from '../html-report.js';
import type { ProviderScenarioCounts, ProviderScenarioResult } from './provider-scenario.js';

/** How a provider's HTML report names an order and says what was found about it. */
export interface ProviderHtmlWords<O> {
  /** `payme`, `telegram`: the `--provider` word of the title. */
  readonly provider: string;
  /** The order's key, as the scenario's timeline names it (an account as JSON, a `merchant_trans_id`, an id). */
  keyOf(order: O): string;
  /** What was found about the order, in words (charges, paid transitions, fulfilments, money on each side). */
  facts(order: O): string;
}

/** What the HTML report reads from a provider storm's report. */
export interface ProviderHtmlReport<O extends { readonly problems: readonly string[] }> {
  readonly target: string;
  readonly startedAtMs: number;
  readonly durationMs: number;
  readonly passed: boolean;
  readonly results: readonly ProviderScenarioResult<ProviderScenarioCounts, O>[];
}

/**
 * A provider storm's HTML report (`payonce storm --provider NAME --html FILE`): the storm HTML report's format, one
 * run (no seed: a provider storm draws nothing), with the table of scenarios and, per scenario, each order's
 * timeline: the order created, the provider's calls or deliveries with the app's answers, what the provider's books
 * moved, and the order's counts as the target reported them. A failed scenario and its orders open expanded.
 */
export function providerStormHtml<O extends { readonly problems: readonly string[] }>(
  report: ProviderHtmlReport<O>,
  words: ProviderHtmlWords<O>,
): string {
  const run: HtmlRun = {
    target: report.target,
    provider: words.provider,
    seed: null,
    startedAtMs: report.startedAtMs,
    durationMs: report.durationMs,
    passed: report.passed,
    results: report.results.map((result) => ({
      ...result,
      extra: null,
      orders: result.orders.map((order) => ({
        orderId: words.keyOf(order),
        facts: words.facts(order),
        problems: order.problems,
      })),
      timeline: result.timeline ?? [],
    })),
  };
  return htmlReport([run], `payonce storm --provider ${words.provider}`);
}

import type { ProviderStormProgress } from '@payonce/storm/internal/provider/provider-scenario.js';
import type { StormProgress } from '@payonce/storm/internal/storm-report.js';

/** A provider storm's progress event (Payme, Click, Uzum), as the progress line reads it. */
export type ProviderProgress = ProviderStormProgress<{
  readonly id: number;
  readonly name: string;
  readonly verdict: string;
  readonly reasons: readonly string[];
  readonly durationMs: number;
}>;

/** A scenario number as the progress lines print it: two places and a dot. */
const numbered = (id: number): string => `${String(id).padStart(2)}.`;

/**
 * One progress line of a storm run (`payonce storm`, `payonce demo`): the verdict (`pass`, `skip`, `FAIL`) or
 * `start`, the scenario's number and name, and last the running count of what it counts, e.g.
 * `pass  8. same webhook twice (765 ms)  [7 of 18 finished]`. Scenarios run several at a time, so lines come in
 * the order they finish, not by number; the count never stands where a scenario number would. Numbers are padded
 * to two places, so the names line up (`pass  8.`, `pass 10.`).
 */
export function progressLine(event: StormProgress | ProviderProgress): string {
  if (event.kind === 'started') {
    return `start ${numbered(event.id)} ${event.name}  [${event.index} of ${event.total} started]`;
  }
  const { result } = event;
  const verdict = result.verdict === 'fail' ? 'FAIL' : result.verdict;
  const why = result.reasons.length > 0 ? `: ${result.reasons.join('; ')}` : '';
  return `${verdict} ${numbered(result.id)} ${result.name} (${result.durationMs} ms)${why}  [${event.index} of ${event.total} finished]`;
}

/**
 * The line before the progress lines: how many scenarios, how many at a time, which of the selected ones (`only`;
 * all when absent) kill a service process and so run alone at the end, and why the lines are out of order.
 * `killingIds` are the numbers of the scenarios that kill one (the storm's `KILLING_SCENARIO_IDS`, passed in because
 * `@payonce/storm` is loaded only when a storm runs).
 */
export function stormPlanLine(
  total: number,
  concurrency: number,
  killingIds: readonly number[],
  only?: readonly number[],
): string {
  const killing = killingIds.filter((id) => only === undefined || only.includes(id));
  const alone =
    killing.length === 0
      ? ''
      : ` (scenario ${killing.join(' and scenario ')}, which kill${killing.length === 1 ? 's' : ''} a service ` +
        `process, run${killing.length === 1 ? 's' : ''} alone at the end)`;
  return (
    `running ${total} scenarios, ${Math.min(total, concurrency)} at a time${alone}: lines come in the order they ` +
    'finish; the table below is in scenario order'
  );
}

/**
 * A provider storm's plan line (Payme, Click, Uzum): how many scenarios, how many at a time, and which of the
 * selected ones run alone at the end (the crash, which kills the service; Payme's 12-hour timeout, which may move its
 * clock). `aloneIds` are the numbers of the scenarios that run alone (passed in because `@payonce/storm` is loaded
 * only when a storm runs).
 */
export function providerPlanLine(
  provider: string,
  total: number,
  concurrency: number,
  aloneIds: readonly number[],
  only?: readonly number[],
): string {
  const alone = aloneIds.filter((id) => only === undefined || only.includes(id));
  const last = alone.length === 0 ? '' : ` (${alone.join(' and ')} alone at the end)`;
  return (
    `running ${total} ${provider} scenarios, ${Math.min(total, concurrency)} at a time${last}: lines come in the ` +
    'order they finish; the table below is in scenario order'
  );
}

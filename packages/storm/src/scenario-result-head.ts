/** The fields of a scenario that name it in its result. */
interface NamedScenario<D> {
  readonly id: number;
  readonly name: string;
  readonly defends: D;
  readonly criterion: string;
}

/**
 * The part every storm scenario result starts with (the Stripe storm's and each provider storm's): the scenario's
 * number, name, level and criterion, the verdict, and frozen copies of the reasons and notes.
 */
export function scenarioResultHead<D, V>(
  scenario: NamedScenario<D>,
  verdict: V,
  reasons: readonly string[],
  notes: readonly string[],
) {
  const { id, name, defends, criterion } = scenario;
  return {
    id,
    name,
    defends,
    criterion,
    verdict,
    reasons: Object.freeze([...reasons]),
    notes: Object.freeze([...notes]),
  };
}

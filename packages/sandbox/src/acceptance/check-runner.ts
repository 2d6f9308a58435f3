/** One call as a report shows it: what was sent (secrets hidden), the HTTP status, what came back. */
export interface ShownExchange {
  /** What the call was (`Prepare`, `/create`, …). */
  readonly what: string;
  /** How it was authorised or signed, described without the secret. */
  readonly auth: string;
  /** The body sent, exactly. */
  readonly body: string;
  /** The HTTP status, or `null` when no answer came (timeout, closed connection). */
  readonly status: number | null;
  /** The body received, or why nothing was. */
  readonly received: string;
}

/** The outcome of one acceptance check. */
export interface CheckResult<E extends Omit<ShownExchange, 'what'> = ShownExchange> {
  /** Short name, e.g. `Complete repeated`. */
  readonly name: string;
  readonly passed: boolean;
  /** The expected answer, in words (codes and fields). */
  readonly expected: string;
  /** What came back, summarised (the first difference when it failed). */
  readonly got: string;
  /** Why the provider expects it, and where that is written (a documentation URL or a fixture). */
  readonly why: string;
  /** Every call the check made. */
  readonly exchanges: readonly E[];
}

/** A check's verdict: passed, and what came back in words. */
export interface Verdict {
  readonly passed: boolean;
  readonly got: string;
  /** Set when no later check can mean anything (an order that is not payable): the battery stops, `got` says why. */
  readonly halt?: boolean;
}

/** What a check declares before it runs. */
export interface CheckSpec {
  readonly name: string;
  readonly expected: string;
  readonly why: string;
}

/** Runs checks one after another, each with its own record of calls made through `send`, into a list of results. */
export class CheckRunner<S, E extends Omit<ShownExchange, 'what'>> {
  readonly results: CheckResult<E>[] = [];
  /** Why the battery must stop (the `got` of a halting verdict), or null. */
  stopped: string | null = null;

  constructor(private readonly send: (spec: S) => Promise<E>) {}

  /** Runs `body` with a `call` that records every exchange; an exception fails the check with its message. */
  async check(spec: CheckSpec, body: (call: (s: S) => Promise<E>) => Promise<Verdict>): Promise<boolean> {
    const exchanges: E[] = [];
    const call = async (s: S) => {
      const exchange = await this.send(s);
      exchanges.push(exchange);
      return exchange;
    };
    let verdict: Verdict;
    try {
      verdict = await body(call);
    } catch (error) {
      verdict = { passed: false, got: `the check could not run: ${(error as Error).message}` };
    }
    if (verdict.halt === true) this.stopped = verdict.got;
    this.results.push({ ...spec, passed: verdict.passed, got: verdict.got, exchanges });
    return verdict.passed;
  }
}

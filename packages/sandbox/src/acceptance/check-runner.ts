import { lostEndpoint, transportProblem } from './transport-problem.js';

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
  /** When no answer came: the network error's code (`ECONNREFUSED`, …) or `timeout`. */
  readonly failure?: string;
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

/** Answers a provider-specific question about the preflight's answer: why the battery cannot run, or null. */
export type PreflightDiagnosis<E> = (exchange: E) => string | null;

/**
 * Runs checks one after another, each with its own record of calls made through `send`, into a list of results.
 * Stops early, with one line in `stopped`, when the battery cannot mean anything: a {@link CheckRunner.preflight}
 * found the endpoint unreachable or misconfigured, a verdict halted it, or a failed check could not connect or got
 * HTTP 404 ({@link lostEndpoint}; a timeout or an error page may be that call's own failure, so the battery goes
 * on); a check asked for after that is neither run nor recorded.
 */
export class CheckRunner<S, E extends Omit<ShownExchange, 'what'>> {
  readonly results: CheckResult<E>[] = [];
  /** Why the battery stopped (one line), or null. */
  stopped: string | null = null;

  /** `urlOf` says where `send` sends a call (for the stop lines). */
  constructor(
    private readonly send: (spec: S) => Promise<E>,
    private readonly urlOf: (spec: S) => string,
  ) {}

  /**
   * Sends `spec` once before the first check, to stop early with one line instead of a wall of failures: the
   * transport's problems first ({@link transportProblem}), then the provider's `diagnose` (a refused key, an amount
   * in sum, a wrong account field). The call is not a check and is not reported. Returns whether the battery may run.
   */
  async preflight(spec: S, diagnose: PreflightDiagnosis<E>): Promise<boolean> {
    const exchange = await this.send(spec);
    this.stopped = transportProblem(exchange, this.urlOf(spec)) ?? diagnose(exchange);
    return this.stopped === null;
  }

  /**
   * Runs `body` with a `call` that records every exchange; an exception fails the check with its message. Returns
   * whether it passed; false without running when the battery has stopped.
   */
  async check(spec: CheckSpec, body: (call: (s: S) => Promise<E>) => Promise<Verdict>): Promise<boolean> {
    if (this.stopped !== null) return false;
    const exchanges: E[] = [];
    let broken: string | null = null;
    const call = async (s: S) => {
      const exchange = await this.send(s);
      exchanges.push(exchange);
      broken ??= lostEndpoint(exchange, this.urlOf(s));
      return exchange;
    };
    let verdict: Verdict;
    try {
      verdict = await body(call);
    } catch (error) {
      verdict = { passed: false, got: `the check could not run: ${(error as Error).message}` };
    }
    if (verdict.halt === true) this.stopped = verdict.got;
    else if (!verdict.passed && broken !== null) this.stopped = broken;
    this.results.push({ ...spec, passed: verdict.passed, got: verdict.got, exchanges });
    return verdict.passed;
  }
}
